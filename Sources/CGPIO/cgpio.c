// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "cgpio.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/gpio.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static int fail(void) { return -errno; }

int cgpio_open_chip(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return fail();
    struct gpiochip_info info;
    if (ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, &info) < 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

int cgpio_close(int fd) { return close(fd) < 0 ? fail() : 0; }

int cgpio_chip_info_of(int chip_fd, cgpio_chip_info *out)
{
    struct gpiochip_info info;
    memset(&info, 0, sizeof info);
    if (ioctl(chip_fd, GPIO_GET_CHIPINFO_IOCTL, &info) < 0)
        return fail();
    memset(out, 0, sizeof *out);
    strncpy(out->name, info.name, CGPIO_NAME_MAX - 1);
    strncpy(out->label, info.label, CGPIO_NAME_MAX - 1);
    out->lines = info.lines;
    return 0;
}

int cgpio_line_info_of(int chip_fd, uint32_t offset, cgpio_line_info *out)
{
    struct gpio_v2_line_info info;
    memset(&info, 0, sizeof info);
    info.offset = offset;
    if (ioctl(chip_fd, GPIO_V2_GET_LINEINFO_IOCTL, &info) < 0)
        return fail();
    memset(out, 0, sizeof *out);
    strncpy(out->name, info.name, CGPIO_NAME_MAX - 1);
    strncpy(out->consumer, info.consumer, CGPIO_NAME_MAX - 1);
    out->used = (info.flags & GPIO_V2_LINE_FLAG_USED) != 0;
    return 0;
}

int cgpio_request_rising(int chip_fd, uint32_t offset, const char *consumer, uint32_t queue_events)
{
    struct gpio_v2_line_request request;
    memset(&request, 0, sizeof request);
    request.offsets[0] = offset;
    request.num_lines = 1;
    strncpy(request.consumer, consumer, GPIO_MAX_NAME_SIZE - 1);
    /* An input with rising edges; the v2 uAPI stamps on CLOCK_MONOTONIC
     * unless asked otherwise. */
    request.config.flags = GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING;
    request.event_buffer_size = queue_events;
    if (ioctl(chip_fd, GPIO_V2_GET_LINE_IOCTL, &request) < 0)
        return fail();
    int flags = fcntl(request.fd, F_GETFL);
    if (flags < 0 || fcntl(request.fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        int error = errno;
        close(request.fd);
        return -error;
    }
    return request.fd;
}

int cgpio_wait(int line_fd, int wake_fd, uint64_t timeout_ns)
{
    struct pollfd fds[2] = { { .fd = line_fd, .events = POLLIN }, { .fd = wake_fd, .events = POLLIN } };
    struct timespec timeout = { .tv_sec = (time_t)(timeout_ns / 1000000000u), .tv_nsec = (long)(timeout_ns % 1000000000u) };
    int ready;
    do {
        ready = ppoll(fds, wake_fd >= 0 ? 2 : 1, &timeout, NULL);
    } while (ready < 0 && errno == EINTR);
    if (ready < 0)
        return fail();
    if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL))
        return -ENODEV;
    if (fds[1].revents & POLLIN) {
        uint64_t count;
        if (read(wake_fd, &count, sizeof count) < 0 && errno != EAGAIN)
            return fail();
        return 2;
    }
    return fds[0].revents & POLLIN ? 1 : 0;
}

int cgpio_read_edges(int line_fd, cgpio_edge *edges, int max)
{
    struct gpio_v2_line_event events[16];
    int count = 0;
    while (count < max) {
        int wanted = max - count < 16 ? max - count : 16;
        ssize_t got = read(line_fd, events, sizeof events[0] * (size_t)wanted);
        if (got < 0) {
            if (errno == EAGAIN || errno == EINTR)
                break;
            return fail();
        }
        int n = (int)(got / (ssize_t)sizeof events[0]);
        for (int i = 0; i < n; i++) {
            if (events[i].id != GPIO_V2_LINE_EVENT_RISING_EDGE)
                continue;
            edges[count].timestamp_ns = events[i].timestamp_ns;
            edges[count].line_seqno = events[i].line_seqno;
            count++;
        }
        if (n < wanted)
            break;
    }
    return count;
}

int cgpio_level(int line_fd)
{
    struct gpio_v2_line_values values = { .bits = 0, .mask = 1 };
    if (ioctl(line_fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &values) < 0)
        return fail();
    return (int)(values.bits & 1);
}

int cgpio_wake_fd(void)
{
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd < 0 ? fail() : fd;
}

int cgpio_wake(int wake_fd)
{
    uint64_t one = 1;
    return write(wake_fd, &one, sizeof one) < 0 && errno != EAGAIN ? fail() : 0;
}
