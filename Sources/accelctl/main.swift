// SPDX-License-Identifier: Apache-2.0
import AccelConfiguration

Accelctl.main(expandingBareSimulate(Array(CommandLine.arguments.dropFirst())))
