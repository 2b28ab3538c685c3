import ArgumentParser

AccelBench.main()
