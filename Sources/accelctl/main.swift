// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

Accelctl.main()
