/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * accel_emu's chips, shared by emu_main.c (the LIS302DL family, the
 * adapter, sysfs, the INT lines) and emu_six_axis.c (ST's LSM6DSO).
 */
#ifndef ACCEL_EMU_H
#define ACCEL_EMU_H

#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/i2c.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#define EMU_MAX_CHIPS 4
#define EMU_FIFO_DEPTH 32
#define EMU_SAMPLE_BYTES 6
/* The family's datasheets allow the output data rate ±10 % off nominal. */
#define EMU_CLOCK_PPM_LIMIT 100000

#define STATUS_REG 0x27
#define OUT_X_L 0x28
#define OUT_Z_H 0x2d
#define ZYXDA 0x08
#define ZYXOR 0x80
#define AUTO_INCREMENT 0x80

enum emu_access { RESERVED, RO, RW, CLEARS };

struct emu_field {
	u8 reg, mask;
};

/* One part, as data (the kernel's st_accel settings table is the model). */
struct emu_part {
	const char *name;
	const u8 *access;	/* enum emu_access per register */
	const u8 *reset;	/* reset value per register */
	/* Periods of invalid data after power-up: in high-resolution mode
	 * where the part has one, and otherwise. */
	u8 turn_on_periods_high_resolution, turn_on_periods;
	u8 boot_ms;		/* BOOT reads back 1 this long */
	struct emu_field power, odr, range, low_power, high_resolution, boot;
	struct emu_field self_test;
	u8 self_test_code;	/* adds the force; another non-zero code subtracts */
	s16 self_test_mg[3];
	u32 odr_mhz[16], odr_mhz_low_power[16];	/* by ODR code, in mHz; 0: none */
	u8 bits_high_resolution, bits_normal, bits_low_power;
	u32 ug_per_digit[4];	/* by range code, at the finest resolution */
	u8 finest_bits;
	bool has_fifo;
	struct emu_field fifo_enable, fifo_mode, fifo_threshold;
	u8 fifo_source;
	struct emu_field drdy_int;	/* data-ready routed to the INT line */
	bool six_axis;		/* its map and behaviour are emu_six_axis.c's */
};

/*
 * LATE counts the times the clock found more than one sample due: its
 * timer ran over a period late, so the (v)CPU did not run for that long.
 * A check that sees samples dropped can tell a starved guest from a reader
 * that fell behind.
 */
enum emu_counter { MADE, DROPPED, DELIVERED, READS, EMPTY_READS, LATE, EMU_COUNTERS };

struct emu_chip;

struct emu_attribute {
	struct device_attribute attr;
	struct emu_chip *chip;
	int counter;		/* an emu_counter, or -1 */
};

#define EMU_ATTRIBUTES (EMU_COUNTERS + 7)

/* A tagged FIFO word of the LSM6DSO: the tag byte and six data bytes. */
#define EMU6_WORD_BYTES 7
#define EMU6_FIFO_WORDS 512

/* The six-axis part's own state (emu_six_axis.c). */
struct emu_six {
	u8 hub_page[0x80];	/* the sensor hub's bank, behind FUNC_CFG_ACCESS */
	bool accel_on, gyro_on;
	u8 words[EMU6_FIFO_WORDS][EMU6_WORD_BYTES];
	unsigned int head, level;
	bool overrun;		/* FIFO_OVR_IA: a word was lost since the last status read */
	ktime_t timestamp_zero;	/* TIMESTAMP counts 25 µs from here */
};

struct emu_chip {
	const struct emu_part *part;
	u8 addr;
	u8 regs[0x80];
	u8 pointer;		/* the next sub-address, with its auto-increment bit */

	/* What the control registers mean (emu_derive). */
	bool running, fifo_on, fifo_stops_when_full;
	u32 mhz, ug_per_digit;	/* the output data rate in mHz */
	u8 bits;
	u64 period_ns;		/* the true period: nominal and clock_ppm */
	ktime_t start;		/* sample n is made at start + n periods */
	u64 next;
	ktime_t boot_ends;
	bool rearm;		/* the timer must follow a new phase */

	u8 fifo[EMU_FIFO_DEPTH][EMU_SAMPLE_BYTES];
	unsigned int fifo_head, fifo_level;

	/* Motion, as written to sysfs: a slow tilt, a fixed force, or the
	 * sample's own number in X (so a reader can tell which sample it got). */
	enum { TILT, FIXED, COUNT } motion;
	s32 force_mg[3];
	s32 rate_mdps[3];	/* the fixed motion's rotation rate, for a gyroscope */

	u64 counters[EMU_COUNTERS];

	struct hrtimer timer;
	struct mutex rearm_mutex;

	unsigned int irq;	/* the INT line, 0 where the part has none */
	u64 announced;		/* samples the INT line has told of */

	char group_name[16];
	struct emu_attribute attrs[EMU_ATTRIBUTES];
	struct attribute *attr_list[EMU_ATTRIBUTES + 1];
	struct attribute_group group;

	struct emu_six six;
};

static inline u8 emu_get(const struct emu_chip *chip, struct emu_field f)
{
	return f.mask ? (chip->regs[f.reg] & f.mask) >> __ffs(f.mask) : 0;
}

/* emu_main.c */
void emu_motion(const struct emu_chip *chip, ktime_t instant, s32 mg[3]);
void emu_convert(const struct emu_chip *chip, u64 index, ktime_t instant, u8 out[EMU_SAMPLE_BYTES]);
void emu_rotation(const struct emu_chip *chip, ktime_t instant, s32 mdps[3]);


/* emu_six_axis.c */
extern const struct emu_part emu_lsm6dso;
void emu6_configure(struct emu_chip *chip);
void emu6_produce(struct emu_chip *chip, u64 first, u64 last);
u8 emu6_read_reg(struct emu_chip *chip, u8 reg, ktime_t now);
bool emu6_write_reg(struct emu_chip *chip, u8 reg, u8 value, ktime_t now);
bool emu6_auto_increment(const struct emu_chip *chip);
u8 emu6_step(const struct emu_chip *chip, u8 reg);
bool emu6_interrupt(const struct emu_chip *chip);
unsigned int emu6_fifo_level(const struct emu_chip *chip);

#endif

