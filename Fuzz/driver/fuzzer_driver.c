// SPDX-License-Identifier: Apache-2.0
// Declarations only: the fuzzer runtime defines them.
