import ArgumentParser

Accelctl.main()
