// SPDX-License-Identifier: Apache-2.0
// Linked into the aarch64 binaries (scripts/cross-arm64.sh). Debian's
// static Swift runtime was built against glibc 2.42, whose headers turn
// strtol and sscanf into their C23 variants (__isoc23_*, glibc 2.38) and
// which has strlcpy and strlcat (2.38). Raspberry Pi OS bookworm has glibc 2.36, so
// these few are defined here on an older glibc and nowhere else. The C23
// variants differ only in also reading a "0b" prefix for base 0 or 2,
// which the runtime never asks for.
#include <features.h>

#if __GLIBC__ == 2 && __GLIBC_MINOR__ < 38
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long __isoc23_strtol(const char *text, char **end, int base) {
    return strtol(text, end, base);
}

long long __isoc23_strtoll(const char *text, char **end, int base) {
    return strtoll(text, end, base);
}

unsigned long __isoc23_strtoul(const char *text, char **end, int base) {
    return strtoul(text, end, base);
}

int __isoc23_sscanf(const char *text, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int matched = vsscanf(text, format, arguments);
    va_end(arguments);
    return matched;
}

// BSD's: copies at most size - 1 bytes, always terminates, returns the
// length of source (so a result >= size means it was cut).
size_t strlcpy(char *destination, const char *source, size_t size) {
    size_t length = strlen(source);
    if (size > 0) {
        size_t copied = length < size - 1 ? length : size - 1;
        memcpy(destination, source, copied);
        destination[copied] = '\0';
    }
    return length;
}

// Appends within a buffer of size bytes in all; returns the length it
// tried to make.
size_t strlcat(char *destination, const char *source, size_t size) {
    size_t used = strnlen(destination, size);
    if (used == size) return size + strlen(source);
    return used + strlcpy(destination + used, source, size - used);
}
#endif
