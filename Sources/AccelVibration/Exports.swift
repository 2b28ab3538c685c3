// SPDX-License-Identifier: Apache-2.0

// The analysis's settings and the machine's classes, bearings and states
// are part of this module's API: whoever analyses names them too.
@_exported import AccelMachine
