// SPDX-License-Identifier: Apache-2.0
/*
 * gpio-watch: the kernel stage's GPIO v2 client and chip reader
 * (scripts/kernel/gpio-checks.sh), built on the host, run in the guest.
 *
 * By default it holds one line of a gpiochip with edge detection through
 * the kernel's GPIO v2 uAPI (GPIO_V2_GET_LINE_IOCTL, as acceld will) for
 * -t seconds, and after each wake-up with events reads the chip on I2C as
 * a driver would: its output registers (-r), or its FIFO drained (-d).
 * It reads once right after taking the line (a latched data ready that is
 * already high gives no edge until it is read), and again whenever no
 * edge came for -w USEC (50 ms; counted as watchdog reads). It prints
 *
 *   gpio-watch: events N rising R falling F span_ns S seq_gaps G reads M
 *   empty E watchdog W lateness_us P50 P99 MAX index S L O value V
 *
 * span_ns is from the first event's kernel timestamp to the last's;
 * seq_gaps the events the sequence numbers say the kernel lost; empty
 * the reads that found no new sample (byte 0 & -m MASK clear, or an empty
 * FIFO); lateness each rising edge's timestamp after the emulator's
 * instant of the newest sample made then (-s START_NS -P PERIOD_NS: sample
 * k at START_NS + k × PERIOD_NS), its median, 99th percentile and
 * largest, in µs; index the reads whose sample number (the emulator's
 * `count` motion, -x POS:BITS: the X word at byte POS of the -r read) was
 * the edge's sample, a later one (1 to 3 on), or another; value the
 * line's value at the end (GPIO_V2_LINE_GET_VALUES_IOCTL). -v prints each
 * event first.
 *
 * With -i it holds no line: it reads the chip after each line on its
 * standard input (gpiomon -b's events) and when none came for -w USEC,
 * copies the lines to its output, and on SIGUSR1 stops reading the chip,
 * still copying ("gpio-watch:
 * lines N reads M empty E watchdog W stopped_ns T" last). With -p USEC it
 * only reads the chip every USEC µs for -t seconds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/gpio.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 100000

static int i2c = -1, address = -1;
static unsigned int reg, length, mask;
static const char *drain;	/* "lis3dh" or "lsm6dso": a FIFO drained */
static long reads, empty, watchdog;
static uint8_t buf[256];
static volatile sig_atomic_t stopped;
static int64_t stopped_ns;
static long watchdog_us = 50000;	/* -w: a read when nothing came for this long */

static void fail(const char *what)
{
	fprintf(stderr, "gpio-watch: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void stop(int signal)
{
	(void)signal;
	if (!stopped)
		stopped_ns = now_ns();
	stopped = 1;
}

/* Writes the sub-address, then reads n bytes: one I2C_RDWR, as acceld reads. */
static void transfer(unsigned int from, uint8_t *into, unsigned int n)
{
	uint8_t sub = from;
	struct i2c_msg msgs[2] = {
		{ .addr = address, .flags = 0, .len = 1, .buf = &sub },
		{ .addr = address, .flags = I2C_M_RD, .len = n, .buf = into },
	};
	struct i2c_rdwr_ioctl_data data = { .msgs = msgs, .nmsgs = 2 };

	if (ioctl(i2c, I2C_RDWR, &data) < 0)
		fail("I2C_RDWR");
	reads++;
}

/* The read after an edge: the -r read into buf, or the FIFO drained as the
 * kernel's drivers do (its level, then that many samples, until empty). */
static void read_chip(void)
{
	uint8_t status[2], words[512 * 7];
	unsigned int n, round;

	if (i2c < 0 || stopped)
		return;
	if (!drain) {
		transfer(reg, buf, length);
		if (mask && !(buf[0] & mask))
			empty++;
		return;
	}
	for (round = 0; round < 4; round++) {
		if (!strcmp(drain, "lis3dh")) {
			transfer(0x2f, status, 1);	/* FIFO_SRC: OVRN_FIFO, FSS */
			n = status[0] & 0x40 ? 32 : status[0] & 0x1f;
			if (n)
				transfer(0xa8, words, n * 6);
		} else {
			transfer(0x3a, status, 2);	/* FIFO_STATUS1/2: DIFF_FIFO */
			n = status[0] | (status[1] & 0x03) << 8;
			if (n)
				transfer(0x78, words, n * 7);
		}
		if (!n) {
			if (round == 0)
				empty++;
			break;
		}
	}
}

static void poll_mode(long usec, int64_t deadline)
{
	struct timespec pause = { 0, usec * 1000 };

	while (now_ns() < deadline) {
		read_chip();
		nanosleep(&pause, NULL);
	}
	printf("gpio-watch: polled reads %ld empty %ld\n", reads, empty);
}

static void stdin_mode(void)
{
	char line[4096];
	size_t used = 0;
	long lines = 0;
	struct sigaction action = { .sa_handler = stop };

	sigaction(SIGUSR1, &action, NULL);
	read_chip();
	for (;;) {
		struct pollfd pfd = { .fd = 0, .events = POLLIN };
		struct timespec wait = { watchdog_us / 1000000, watchdog_us % 1000000 * 1000 };
		ssize_t got;
		char *end;
		int ready = ppoll(&pfd, 1, &wait, NULL);

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			fail("poll");
		if (ready == 0) {
			if (!stopped)
				watchdog++;
			read_chip();
			continue;
		}
		got = read(0, line + used, sizeof(line) - 1 - used);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		used += got;
		while ((end = memchr(line, '\n', used)) != NULL) {
			size_t n = end - line + 1;

			fwrite(line, 1, n, stdout);
			memmove(line, line + n, used - n);
			used -= n;
			lines++;
		}
		if (used == sizeof(line) - 1)
			used = 0;
		read_chip();	/* one read for what came */
	}
	printf("gpio-watch: lines %ld reads %ld empty %ld watchdog %ld stopped_ns %lld\n",
	       lines, reads, empty, watchdog, (long long)stopped_ns);
}

static int compare(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void line_mode(const char *chip, int offset, const char *edge, int active_low, int verbose,
		      int64_t deadline, int64_t start, int64_t period, int position, int bits)
{
	struct gpio_v2_line_request request;
	struct gpio_v2_line_values values = { .mask = 1 };
	long events = 0, rising = 0, falling = 0, gaps = 0, late_n = 0, same = 0, later = 0, other = 0;
	int64_t first = 0, last = 0, *lateness = calloc(MAX_EVENTS, sizeof(*lateness));
	uint32_t line_seqno = 0;
	int fd = open(chip, O_RDONLY), value = -1;

	if (!lateness)
		fail("calloc");
	if (fd < 0)
		fail(chip);
	memset(&request, 0, sizeof(request));
	request.offsets[0] = offset;
	request.num_lines = 1;
	request.event_buffer_size = 64;
	strcpy(request.consumer, "gpio-watch");
	request.config.flags = GPIO_V2_LINE_FLAG_INPUT | (active_low ? GPIO_V2_LINE_FLAG_ACTIVE_LOW : 0) |
		(strcmp(edge, "falling") ? GPIO_V2_LINE_FLAG_EDGE_RISING : 0) |
		(strcmp(edge, "rising") ? GPIO_V2_LINE_FLAG_EDGE_FALLING : 0);
	if (ioctl(fd, GPIO_V2_GET_LINE_IOCTL, &request) < 0)
		fail("GPIO_V2_GET_LINE_IOCTL");
	close(fd);
	read_chip();	/* a data ready latched before the line was held */

	for (;;) {
		struct gpio_v2_line_event batch[16];
		struct pollfd pfd = { .fd = request.fd, .events = POLLIN };
		struct timespec wait;
		int64_t left = deadline - now_ns(), t = 0, k;
		ssize_t got;
		int i, ready;

		if (left <= 0)
			break;
		if (left > watchdog_us * 1000)
			left = watchdog_us * 1000;
		wait.tv_sec = left / 1000000000;
		wait.tv_nsec = left % 1000000000;
		ready = ppoll(&pfd, 1, &wait, NULL);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			fail("poll");
		if (ready == 0) {
			if (now_ns() < deadline)
				watchdog++;
			read_chip();
			continue;
		}
		got = read(request.fd, batch, sizeof(batch));
		if (got < (ssize_t)sizeof(batch[0]))
			fail("read");
		for (i = 0; i < got / (ssize_t)sizeof(batch[0]); i++) {
			struct gpio_v2_line_event *e = &batch[i];
			int up = e->id == GPIO_V2_LINE_EVENT_RISING_EDGE;

			t = (int64_t)e->timestamp_ns;
			if (events == 0)
				first = t;
			else if (e->line_seqno != line_seqno + 1)
				gaps += e->line_seqno - line_seqno - 1;
			line_seqno = e->line_seqno;
			last = t;
			events++;
			if (up)
				rising++;
			else
				falling++;
			if (verbose)
				printf("EVENT %lld %u %u %s\n", (long long)t, e->line_seqno, e->seqno,
				       up ? "rising" : "falling");
			if (period > 0 && t >= start && up && late_n < MAX_EVENTS)
				lateness[late_n++] = t - start - (t - start) / period * period;
		}
		read_chip();	/* one read for what came: the newest sample, or the FIFO */
		if (period > 0 && t >= start && position >= 0 && position + 1 < (int)length) {
			int64_t modulus = 1LL << bits, x, step;

			k = (t - start) / period;
			x = ((uint16_t)(buf[position] | buf[position + 1] << 8)) >> (16 - bits);
			step = ((x - k) % modulus + modulus) % modulus;
			if (step == 0)
				same++;
			else if (step <= 3)
				later++;
			else
				other++;
		}
	}
	if (ioctl(request.fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &values) == 0)
		value = (int)(values.bits & 1);
	qsort(lateness, late_n, sizeof(*lateness), compare);
	printf("gpio-watch: events %ld rising %ld falling %ld span_ns %lld seq_gaps %ld reads %ld empty %ld watchdog %ld lateness_us %.1f %.1f %.1f index %ld %ld %ld value %d\n",
	       events, rising, falling, (long long)(last - first), gaps, reads, empty, watchdog,
	       late_n ? lateness[late_n / 2] / 1e3 : -1.0, late_n ? lateness[late_n * 99 / 100] / 1e3 : -1.0,
	       late_n ? lateness[late_n - 1] / 1e3 : -1.0, same, later, other, value);
}

static void usage(void)
{
	fprintf(stderr, "usage: gpio-watch (-c /dev/gpiochipN -l OFFSET [-e rising|falling|both] [-L] | -i | -p USEC)\n"
		"  [-w USEC] [-t SECONDS] [-b BUS -a ADDRESS (-r REG:LENGTH [-m MASK] | -d lis3dh|lsm6dso)]\n"
		"  [-s START_NS -P PERIOD_NS [-x POS:BITS]] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *chip = NULL, *edge = "rising";
	int offset = -1, bus = -1, active_low = 0, verbose = 0, from_stdin = 0, option, position = -1, bits = 0;
	long poll_us = 0;
	double seconds = 2;
	int64_t start = 0, period = 0, deadline;

	while ((option = getopt(argc, argv, "c:l:e:Lip:w:t:b:a:r:m:d:s:P:x:v")) != -1) {
		switch (option) {
		case 'c': chip = optarg; break;
		case 'l': offset = atoi(optarg); break;
		case 'e': edge = optarg; break;
		case 'L': active_low = 1; break;
		case 'i': from_stdin = 1; break;
		case 'p': poll_us = atol(optarg); break;
		case 'w': watchdog_us = atol(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'b': bus = atoi(optarg); break;
		case 'a': address = (int)strtol(optarg, NULL, 0); break;
		case 'r':
			if (sscanf(optarg, "%i:%u", &reg, &length) != 2 || !length || length > sizeof(buf))
				usage();
			break;
		case 'm': mask = (unsigned int)strtol(optarg, NULL, 0); break;
		case 'd': drain = optarg; break;
		case 's': start = strtoll(optarg, NULL, 0); break;
		case 'P': period = strtoll(optarg, NULL, 0); break;
		case 'x':
			if (sscanf(optarg, "%d:%d", &position, &bits) != 2 || bits < 1 || bits > 16)
				usage();
			break;
		case 'v': verbose = 1; break;
		default: usage();
		}
	}
	if ((!chip || offset < 0) && !poll_us && !from_stdin)
		usage();
	if (bus >= 0) {
		char path[32];

		if (address < 0 || (!length && !drain))
			usage();
		snprintf(path, sizeof(path), "/dev/i2c-%d", bus);
		i2c = open(path, O_RDWR);
		if (i2c < 0)
			fail(path);
	}
	deadline = now_ns() + (int64_t)(seconds * 1e9);
	if (poll_us)
		poll_mode(poll_us, deadline);
	else if (from_stdin)
		stdin_mode();
	else
		line_mode(chip, offset, edge, active_low, verbose, deadline, start, period, position, bits);
	return 0;
}
