// SPDX-License-Identifier: Apache-2.0
// CGPIO: the only code in acceld that talks to the kernel's GPIO character
// device (/dev/gpiochipN), through its v2 uAPI (Linux 5.10 and later).
//
// Why not libgpiod: Debian bookworm and Raspberry Pi OS ship libgpiod 1.6,
// which speaks the v1 uAPI; its edge events carry a timestamp but no
// sequence number, and acceld counts the edges the kernel dropped while it
// was late from exactly that. libgpiod 2 (v2 uAPI) is not in bookworm.
// The v2 structures are few; libgpiod's tools (gpioinfo, gpiomon) still
// show acceld as the line's consumer, as for any requester.
//
// As in CI2C: every function returns a non-negative result on success and
// -errno on failure, and nothing here prints, aborts or retries.
#ifndef CGPIO_H
#define CGPIO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CGPIO_NAME_MAX 32

typedef struct {
    char name[CGPIO_NAME_MAX];   /* "gpiochip0" */
    char label[CGPIO_NAME_MAX];  /* the driver's: "pinctrl-bcm2711", "accel_emu" */
    uint32_t lines;
} cgpio_chip_info;

typedef struct {
    char name[CGPIO_NAME_MAX];      /* from gpio-line-names, or empty */
    char consumer[CGPIO_NAME_MAX];  /* who holds it, or empty */
    int used;                       /* requested by someone (or the kernel) */
} cgpio_line_info;

/// A rising edge as the kernel stamped it (CLOCK_MONOTONIC).
typedef struct {
    uint64_t timestamp_ns;
    uint32_t line_seqno;  /* this line's edges since the request, from 1 */
} cgpio_edge;

/// Opens a GPIO chip node read-write and checks that it is one
/// (-ENOTTY: some other device). Returns the fd or -errno.
int cgpio_open_chip(const char *path);
/// Closes an fd (chip, line or wake). Returns 0 or -errno.
int cgpio_close(int fd);
/// The chip's name, label and number of lines.
int cgpio_chip_info_of(int chip_fd, cgpio_chip_info *out);
/// One line's name and consumer.
int cgpio_line_info_of(int chip_fd, uint32_t offset, cgpio_line_info *out);
/// Requests `offset` as an input with rising-edge events stamped on
/// CLOCK_MONOTONIC, as `consumer`, with a kernel event queue of
/// `queue_events` (0: the kernel's default, 16 per line). Returns the
/// line's fd (non-blocking) or -errno (-EBUSY: another holds it).
int cgpio_request_rising(int chip_fd, uint32_t offset, const char *consumer, uint32_t queue_events);
/// Waits until the line has events, `wake_fd` is readable, or `timeout_ns`
/// pass. Returns 1 for events, 2 for a wake (drained), 0 for the timeout,
/// or -errno (-ENODEV: the chip is gone).
int cgpio_wait(int line_fd, int wake_fd, uint64_t timeout_ns);
/// Reads the queued edges, at most `max`. Returns how many or -errno
/// (0: none waiting).
int cgpio_read_edges(int line_fd, cgpio_edge *edges, int max);
/// The line's level now: 1 high, 0 low, or -errno.
int cgpio_level(int line_fd);
/// An eventfd that ends a cgpio_wait from another thread. Returns the fd or -errno.
int cgpio_wake_fd(void);
/// Makes `wake_fd` readable. Returns 0 or -errno.
int cgpio_wake(int wake_fd);

#ifdef __cplusplus
}
#endif

#endif
