// SPDX-License-Identifier: Apache-2.0
// KissFFT (BSD-3-Clause), from Debian's libkissfft-dev, in single
// precision (the library Debian builds): the vibration module's real and
// complex transforms. The scalar's definition is the one Debian's
// kissfft-float.pc gives (SwiftPM does not take -D from pkg-config).
#ifndef kiss_fft_scalar
#define kiss_fft_scalar float
#endif
#include <kissfft/kiss_fft.h>
#include <kissfft/kiss_fftr.h>
