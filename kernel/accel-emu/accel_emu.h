/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * accel_emu's shared header. The module is split by job, as the kernel's
 * own drivers are:
 *
 *   emu_main.c      the module: parameters, the chips it is asked for
 *   emu_core.c      the LIS302DL family: registers, samples, the hrtimer
 *   emu_six_axis.c  ST's LSM6DSO: its registers, FIFO and signals
 *   emu_i2c.c       the I2C adapter: plain and SMBus transfers
 *   emu_sysfs.c     the attributes in i2c-N/emu-0xNN/
 *   emu_gpio.c      the INT pins: levels from the interrupt registers,
 *                   the GPIO controller, the irq domain, the peers' irq
 *
 * docs/EMULATOR.md describes what each part models.
 */
#ifndef ACCEL_EMU_H
#define ACCEL_EMU_H

#include <linux/bits.h>
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
/* The `shake` motion: ±1500 mg on X about the fixed force, flipping each
 * 125 ms (4 Hz), for 1.5 s from the instant it was written. */
#define EMU_SHAKE_MG 1500
#define EMU_SHAKE_HALF_NS 125000000ULL
#define EMU_SHAKE_NS 1500000000LL

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

/*
 * What a chip's INT pins can carry: its interrupt signals, each active
 * (1) or not at an instant. The part's table routes them to a pin.
 * Signals the emulator does not model (click, boot, the LIS3DH's ADC,
 * the LSM6DSO's temperature and batch counter) are in the tables all the
 * same, so that routing them is accepted, and never active.
 */
enum emu_signal {
	SIG_DRDY,	/* the accelerometer's data ready: ZYXDA, XLDA */
	SIG_DRDY_G,	/* the gyroscope's: GDA */
	SIG_FIFO_WTM,	/* the FIFO past its watermark */
	SIG_FIFO_OVR,	/* the FIFO overrun */
	SIG_FIFO_FULL,	/* the FIFO full */
	SIG_WAKE1,	/* FF_WU_1, IA1, the LSM6DSO's wake-up */
	SIG_WAKE2,	/* FF_WU_2, IA2 */
	SIG_UNMODELLED,	/* click, boot, ACT, ADC, temperature, ... */
	EMU_SIGNALS
};

/* A field's value that routes signals to a pin: a bit (value 1), or one
 * code of a field that selects a source (the LIS302DL's I1CFG). */
struct emu_route {
	struct emu_field field;
	u8 value;
	u16 signals;		/* BIT(enum emu_signal) */
};

#define EMU_PINS 2		/* INT1, INT2 */
#define EMU_ROUTES 8

/* One pin of a part, as data: what routes to it, and its polarity. */
struct emu_pin_map {
	struct emu_route routes[EMU_ROUTES];	/* the first with no mask ends */
	struct emu_field active_low;	/* 1: the pin rests high, pulls low */
	struct emu_field open_drain;	/* read back only: the board pulls up */
};

/*
 * An inertial interrupt unit of the family (the LIS302DL's FF_WU_1/2, the
 * LIS3DH's IA1/IA2), as data: its CFG (AOI bit 7, the six axis events'
 * enables in bits 5:0), SRC (IA bit 6, the events), THS (bits 6:0) and
 * DURATION (bits 6:0, in samples) registers, its latch (LIR), the
 * threshold's step in mg by range code, and the bit that puts the chip's
 * high-pass filter on its path (HP_FF_WU1/2, HP_IA1/2).
 */
struct emu_inertial_map {
	u8 cfg, source, threshold, duration;	/* cfg 0: no such unit */
	struct emu_field latch;
	u16 mg_per_threshold[4];
	struct emu_field high_pass;
};

#define EMU_INERTIAL 2

/* A unit's state: its source (IA and the events), samples in a row that met it. */
struct emu_inertial {
	u8 source;
	unsigned int count;
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
	/* data-ready on INT1, for the peers' irq (client->init_irq) */
	struct emu_field drdy_int;
	struct emu_pin_map pins[EMU_PINS];
	struct emu_inertial_map inertial[EMU_INERTIAL];
	/* Reading it sets the high-pass filter's reference to the present
	 * force (HP_FILTER_RESET, REFERENCE); 0: no filter. */
	u8 high_pass_reset;
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
	int counter;		/* an emu_counter, a pin, or -1 */
};

#define EMU_ATTRIBUTES (EMU_COUNTERS + 14)

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
	/* The wake-up function: the last sample's force (its slope filter's
	 * input), the high-pass filter's reference (mg << 16), WAKE_UP_SRC,
	 * samples in a row over the threshold. */
	s32 last_mg[3];
	bool have_last;
	s64 hp_reference[3];
	u8 wake_source;
	unsigned int wake_count;
};

/* An INT pin as a GPIO line (emu_gpio.c); its fields under emu_lock. */
struct emu_line {
	bool level;		/* what the pin drives: 1 high, 0 low */
	unsigned int type;	/* the IRQ_TYPE_EDGE_* its consumer asked for */
	bool enabled;		/* a consumer holds its interrupt */
	unsigned int offset;	/* on the GPIO controller */
	unsigned int virq;
	unsigned int pending;	/* interrupts to raise once emu_lock is dropped */
	u64 rises, falls, raised;
	/* The probe (intN_probe): once armed, the pin's next rise and the
	 * first read after it that delivered a sample (0: not yet). */
	bool probe_armed;
	ktime_t probe_rise, probe_read;
	char name[24];		/* lis302dl-0x1c-int1 */
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

	/* Motion, as written to sysfs: a slow tilt, a fixed force, the
	 * sample's own number in X (so a reader can tell which sample it got),
	 * or a shake about the fixed force from an instant on. */
	enum { TILT, FIXED, COUNT, SHAKE } motion;
	s32 force_mg[3];
	ktime_t shake_start;
	s32 rate_mdps[3];	/* the fixed motion's rotation rate, for a gyroscope */

	u64 counters[EMU_COUNTERS];

	struct hrtimer timer;
	struct mutex rearm_mutex;

	unsigned int irq;	/* the peers' data-ready irq, 0 where the part has none */
	u64 announced;		/* samples that irq has told of */
	struct emu_line lines[EMU_PINS];
	struct emu_inertial inertial[EMU_INERTIAL];
	/* The high-pass filter's reference, mg × 65536 (emu_core.c) */
	s64 high_pass_reference[3];

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

/* emu_main.c: the chips and what they share */
extern spinlock_t emu_lock;	/* the adapter: transfers, the timers, the pins */
extern struct mutex emu_config_mutex;
extern struct emu_chip *emu_chips[EMU_MAX_CHIPS];
extern int emu_nchips;
extern int emu_clock_ppm;
struct emu_chip *emu_find(u16 addr);

/* emu_core.c */
extern const struct emu_part emu_lis302dl, emu_lis3dh;
void emu_core_init(void);
void emu_chip_init(struct emu_chip *chip);
u64 emu_period_ns(u32 mhz);
ktime_t emu_due(const struct emu_chip *chip);
void emu_produce(struct emu_chip *chip, ktime_t now);
void emu_rearm_changed(void);
void emu_motion(const struct emu_chip *chip, ktime_t instant, s32 mg[3]);
void emu_sensed(const struct emu_chip *chip, ktime_t instant, s32 mg[3]);
void emu_convert(const struct emu_chip *chip, u64 index, ktime_t instant, u8 out[EMU_SAMPLE_BYTES]);
void emu_rotation(const struct emu_chip *chip, ktime_t instant, s32 mdps[3]);
void emu_read(struct emu_chip *chip, u8 *buf, unsigned int len, ktime_t now);
void emu_write(struct emu_chip *chip, const u8 *buf, unsigned int len, ktime_t now);
unsigned int emu_fifo_level(const struct emu_chip *chip);
u16 emu_signals(const struct emu_chip *chip);

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
u16 emu6_signals(const struct emu_chip *chip);

/* emu_i2c.c */
extern struct i2c_adapter emu_adapter;
int emu_i2c_add(bool smbus_only, const struct attribute_group **groups);
void emu_i2c_remove(void);

/* emu_sysfs.c */
void emu_attributes(struct emu_chip *chip);

/* emu_gpio.c */
void emu_pins_update(struct emu_chip *chip);
void emu_unlock_and_raise(unsigned long flags);
int emu_gpio_setup(void);
void emu_gpio_teardown(void);
int emu_irq_setup(void);
void emu_irq_teardown(void);

#endif
