// SPDX-License-Identifier: Apache-2.0
// libFuzzer's entry for programs that have their own main (LLVM >= 11).
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
