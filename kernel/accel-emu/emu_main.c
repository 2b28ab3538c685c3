// SPDX-License-Identifier: GPL-2.0-only
/*
 * accel_emu: LIS302DL-class accelerometers behind an emulated I2C adapter,
 * for acceld's kernel stage (docs/TESTING.md). i2c-stub is a register file:
 * its STATUS never clears, nothing keeps time, nothing overruns, there is
 * no FIFO. These chips do all that as the datasheets say, on their own
 * clock, so the sampler's timing can be tested against a real kernel:
 *
 * - the LIS302DL (WHO_AM_I 0x3b) and the LIS3DH (0x33) register maps,
 *   reset values and access rules; reset is power-down;
 * - one sample per output period from an hrtimer, at the ODR the control
 *   registers select, off by clock_ppm (bounded by the datasheets' ±10 %);
 * - STATUS: each axis's DA bit cleared by reading its high output byte,
 *   OR bits when a new sample overwrites an unread one;
 * - the sub-address's bit 7 turns on auto-increment;
 * - the LIS3DH's 32-sample FIFO (stream, FIFO and stream-to-FIFO modes),
 *   FIFO_SRC with WTM, OVRN_FIFO, EMPTY and FSS; an auto-increment read
 *   from OUT_X_L pops a sample every 6 bytes, wrapping OUT_Z_H to OUT_X_L;
 * - self-test deflection, BOOT clearing itself;
 * - motion: a slow tilt, a fixed force written to sysfs, or each sample's
 *   number, so a reader can tell exactly which samples it got;
 * - the LIS3DH's INT1 line: data-ready (CTRL_REG3 I1_DRDY1) raises an
 *   interrupt of the module's own, given to the I2C client made at its
 *   address, so a kernel driver (st_accel) gets a trigger of its own;
 * - counters in sysfs: samples made, dropped (overwritten or discarded
 *   before anyone read them), delivered, read transfers, empty reads, late
 *   clock ticks (a starved CPU), and the first five at one CLOCK_MONOTONIC
 *   instant.
 *
 * Not modelled: the high-pass filter, other interrupts, click and free-fall
 * units, BDU (every sample is written whole), the LIS3DH's ADC.
 *
 * ST's six-axis LSM6DSO (WHO_AM_I 0x6c), with its gyroscope and tagged
 * FIFO, is emu_six_axis.c's: the kernel's st_lsm6dsx is its peer.
 */
#include "accel_emu.h"

static const char *const emu_counter_names[EMU_COUNTERS] = {
	"samples", "dropped", "delivered", "reads", "empty_reads", "late",
};

static const u8 lis302dl_access[0x80] = {
	[0x0f] = RO, [0x20 ... 0x22] = RW, [0x23] = CLEARS, [0x27 ... 0x2d] = RO,
	[0x30] = RW, [0x31] = CLEARS, [0x32 ... 0x34] = RW, [0x35] = CLEARS,
	[0x36 ... 0x38] = RW, [0x39] = CLEARS, [0x3b ... 0x3f] = RW,
};
static const u8 lis302dl_reset[0x80] = { [0x0f] = 0x3b, [0x20] = 0x07 };

static const u8 lis3dh_access[0x80] = {
	[0x07] = RO, [0x0f] = RO, [0x1e ... 0x25] = RW, [0x26] = CLEARS,
	[0x27 ... 0x2d] = RO, [0x2e] = RW, [0x2f] = RO,
	[0x30] = RW, [0x31] = CLEARS, [0x32 ... 0x34] = RW, [0x35] = CLEARS,
	[0x36 ... 0x38] = RW, [0x39] = CLEARS, [0x3a ... 0x3f] = RW,
};
static const u8 lis3dh_reset[0x80] = { [0x0f] = 0x33, [0x1e] = 0x10, [0x20] = 0x07 };

/*
 * Facts as in Sources/AccelDriver/ChipProfile+Parts.swift (docs/DRIVER.md
 * cites them); the LIS3DH's turn-on is 7/ODR in high-resolution mode and
 * 1/ODR otherwise (datasheet Table 11). Self-test forces are the middle of the published limits in
 * the limits' own conditions: LIS302DL -17/17/17 digits of 18 mg, LIS3DH
 * 188 digits of 4 mg (normal mode, ±2 g).
 */
static const struct emu_part emu_parts[] = {
	{
		.name = "LIS302DL",
		.access = lis302dl_access, .reset = lis302dl_reset,
		.turn_on_periods_high_resolution = 3, .turn_on_periods = 3, .boot_ms = 5,
		.power = { 0x20, 0x40 }, .odr = { 0x20, 0x80 }, .range = { 0x20, 0x20 },
		.boot = { 0x21, 0x40 },
		.self_test = { 0x20, 0x18 }, .self_test_code = 2,
		.self_test_mg = { -306, 306, 306 },
		.odr_mhz = { 100000, 400000 }, .odr_mhz_low_power = { 100000, 400000 },
		.bits_high_resolution = 8, .bits_normal = 8, .bits_low_power = 8,
		.ug_per_digit = { 18000, 72000 }, .finest_bits = 8,
	},
	{
		.name = "LIS3DH",
		.access = lis3dh_access, .reset = lis3dh_reset,
		.turn_on_periods_high_resolution = 7, .turn_on_periods = 1, .boot_ms = 2,
		.power = { 0x20, 0xf0 }, .odr = { 0x20, 0xf0 }, .range = { 0x23, 0x30 },
		.low_power = { 0x20, 0x08 }, .high_resolution = { 0x23, 0x08 },
		.boot = { 0x24, 0x80 },
		.self_test = { 0x23, 0x06 }, .self_test_code = 1,
		.self_test_mg = { 752, 752, 752 },
		.odr_mhz = { 0, 1000, 10000, 25000, 50000, 100000, 200000, 400000, 0, 1344000 },
		.odr_mhz_low_power = { 0, 1000, 10000, 25000, 50000, 100000, 200000, 400000, 1620000, 5376000 },
		.bits_high_resolution = 12, .bits_normal = 10, .bits_low_power = 8,
		.ug_per_digit = { 1000, 2000, 4000, 12000 }, .finest_bits = 12,
		.has_fifo = true,
		.fifo_enable = { 0x24, 0x40 }, .fifo_mode = { 0x2e, 0xc0 },
		.fifo_threshold = { 0x2e, 0x1f }, .fifo_source = 0x2f,
		.drdy_int = { 0x22, 0x10 },
	},
};

/* The parts `parts` may name. */
static const struct emu_part *const emu_all_parts[] = { &emu_parts[0], &emu_parts[1], &emu_lsm6dso };

/* One lock for the adapter: transfers and the chips' timers. */
static DEFINE_SPINLOCK(emu_lock);
/* Guards the chip list against clock_ppm writes while loading and unloading. */
static DEFINE_MUTEX(emu_config_mutex);
static struct emu_chip *emu_chips[EMU_MAX_CHIPS];
static int emu_nchips;
static const struct attribute_group *emu_groups[EMU_MAX_CHIPS + 1];
static ktime_t emu_epoch;	/* t = 0 for the motion */

static int clock_ppm;
static char *parts = "lis302dl@0x1c,lis3dh@0x18";
static bool smbus_only;

/* --- time ------------------------------------------------------------------ */

static u64 emu_period_ns(u32 mhz)
{
	/* 1e9 ns / (mhz / 1000 × (1 + ppm / 1e6)) */
	return div64_u64(1000000000000000000ULL, (u64)mhz * (1000000 + clock_ppm));
}

static ktime_t emu_due(const struct emu_chip *chip)
{
	return ktime_add_ns(chip->start, chip->next * chip->period_ns);
}

/* --- motion ----------------------------------------------------------------- */

/* sin(i × 90° / 64) × 16384: a quarter wave. */
static const u16 emu_quarter_sine[65] = {
	0, 402, 804, 1205, 1606, 2006, 2404, 2801, 3196, 3590, 3981, 4370, 4756,
	5139, 5520, 5897, 6270, 6639, 7005, 7366, 7723, 8076, 8423, 8765, 9102,
	9434, 9760, 10080, 10394, 10702, 11003, 11297, 11585, 11866, 12140, 12406,
	12665, 12916, 13160, 13395, 13623, 13842, 14053, 14256, 14449, 14635,
	14811, 14978, 15137, 15286, 15426, 15557, 15679, 15791, 15893, 15986,
	16069, 16143, 16207, 16261, 16305, 16340, 16364, 16379, 16384,
};

static s32 emu_quarter(u32 x)	/* x in 0..16384 */
{
	u32 i = x >> 8, f = x & 0xff;

	if (i >= 64)
		return emu_quarter_sine[64];
	return emu_quarter_sine[i] + (((emu_quarter_sine[i + 1] - emu_quarter_sine[i]) * f) >> 8);
}

/* sin of a phase in 1/65536 turns, × 16384 */
static s32 emu_sin(u32 phase)
{
	u32 x = phase & 0x3fff;

	switch ((phase >> 14) & 3) {
	case 0: return emu_quarter(x);
	case 1: return emu_quarter(16384 - x);
	case 2: return -emu_quarter(x);
	default: return -emu_quarter(16384 - x);
	}
}

static u32 emu_cycle(u64 t_ns, u64 cycle_ns)	/* the phase of t in a cycle */
{
	u64 rem;

	div64_u64_rem(t_ns, cycle_ns, &rem);
	return (u32)div64_u64(rem << 16, cycle_ns);
}

/*
 * A slow tilt: the board rocks ±30° about Y every 8 s and ±20° about X
 * every 13 s, so every axis changes and gravity stays 1 g.
 */
void emu_motion(const struct emu_chip *chip, ktime_t instant, s32 mg[3])
{
	u64 t = ktime_to_ns(ktime_sub(instant, emu_epoch));
	u32 pitch, roll;

	if (chip->motion != TILT) {
		memcpy(mg, chip->force_mg, sizeof(chip->force_mg));
		return;
	}
	pitch = (u32)((5461 * emu_sin(emu_cycle(t, 8000000000ULL))) >> 14);	/* 30° */
	roll = (u32)((3641 * emu_sin(emu_cycle(t, 13000000000ULL))) >> 14);	/* 20° */
	mg[0] = 1000 * emu_sin(pitch) >> 14;
	mg[1] = (1000 * emu_sin(roll) >> 14) * emu_sin(pitch + 16384) >> 14;
	mg[2] = (1000 * emu_sin(roll + 16384) >> 14) * emu_sin(pitch + 16384) >> 14;
}

/*
 * The rotation rate of that tilt, in the board's axes (mdps): with roll r
 * about X and pitch p (X reads sin p), ω = (r', -p' cos r, p' sin r), so
 * the gravity a gyroscope integrates stays the accelerometer's. The fixed
 * motion turns at the rate written to `rate`; `count` does not turn.
 */
void emu_rotation(const struct emu_chip *chip, ktime_t instant, s32 mdps[3])
{
	u64 t = ktime_to_ns(ktime_sub(instant, emu_epoch));
	u32 pitch_cycle, roll_cycle, roll;
	s32 pitch_rate, roll_rate;

	if (chip->motion != TILT) {
		memcpy(mdps, chip->rate_mdps, sizeof(chip->rate_mdps));
		if (chip->motion == COUNT)
			mdps[0] = mdps[1] = mdps[2] = 0;
		return;
	}
	pitch_cycle = emu_cycle(t, 8000000000ULL);
	roll_cycle = emu_cycle(t, 13000000000ULL);
	roll = (u32)((3641 * emu_sin(roll_cycle)) >> 14);
	pitch_rate = 23562 * emu_sin(pitch_cycle + 16384) >> 14;	/* 30° × 2π / 8 s */
	roll_rate = 9666 * emu_sin(roll_cycle + 16384) >> 14;		/* 20° × 2π / 13 s */
	mdps[0] = roll_rate;
	mdps[1] = -(pitch_rate * emu_sin(roll + 16384) >> 14);
	mdps[2] = pitch_rate * emu_sin(roll) >> 14;
}

/* --- samples ---------------------------------------------------------------- */

/*
 * The six output bytes of sample `index` (made at `instant`), as the chip
 * converts. With the COUNT motion, X carries the index modulo 2^bits
 * instead: a client's frames then say which samples it got.
 */
void emu_convert(const struct emu_chip *chip, u64 index, ktime_t instant, u8 out[EMU_SAMPLE_BYTES])
{
	const struct emu_part *part = chip->part;
	s32 limit = 1 << (chip->bits - 1), mg[3];
	u8 test = emu_get(chip, part->self_test);
	int axis;

	emu_motion(chip, instant, mg);
	for (axis = 0; axis < 3; axis++) {
		s32 digits;
		u16 word;

		if (test == part->self_test_code)
			mg[axis] += part->self_test_mg[axis];
		else if (test)
			mg[axis] -= part->self_test_mg[axis];
		digits = DIV_ROUND_CLOSEST(mg[axis] * 1000, (s32)chip->ug_per_digit);
		digits = clamp(digits, -limit, limit - 1);
		if (axis == 0 && chip->motion == COUNT)
			digits = (s32)(index & ((1 << chip->bits) - 1));
		/* Left-justified: the LIS302DL's low bytes are its dummies, 0. */
		word = (u16)((u32)digits << (16 - chip->bits));
		out[2 * axis] = word & 0xff;
		out[2 * axis + 1] = word >> 8;
	}
}

static void emu_set_fifo_status(struct emu_chip *chip)
{
	chip->regs[STATUS_REG] = chip->fifo_level == 0 ? 0 :
		0x0f | (chip->fifo_level == EMU_FIFO_DEPTH ? 0xf0 : 0);
}

/*
 * Makes every sample whose instant has passed. The hrtimer calls it on
 * time; each transfer calls it first too, so a timer interrupt delivered
 * late (QEMU's TCG) never shows the reader an older chip than the clock's.
 */
static void emu_produce(struct emu_chip *chip, ktime_t now)
{
	u64 index, fresh, kept, k;
	u8 *status = &chip->regs[STATUS_REG];

	if (!chip->running || ktime_before(now, chip->start))
		return;
	index = div64_u64(ktime_to_ns(ktime_sub(now, chip->start)), chip->period_ns);
	if (index < chip->next)
		return;
	fresh = index - chip->next + 1;
	chip->counters[MADE] += fresh;
	if (fresh > 1)
		chip->counters[LATE]++;

	if (chip->part->six_axis) {
		emu6_produce(chip, chip->next, index);
	} else if (chip->fifo_on) {
		/* Only the last 32 can survive; the others are made and lost. */
		kept = min_t(u64, fresh, EMU_FIFO_DEPTH);
		chip->counters[DROPPED] += fresh - kept;
		for (k = index + 1 - kept; k <= index; k++) {
			unsigned int tail;

			if (chip->fifo_level == EMU_FIFO_DEPTH) {
				chip->counters[DROPPED]++;
				if (chip->fifo_stops_when_full)
					continue;	/* FIFO mode keeps the oldest */
				chip->fifo_head = (chip->fifo_head + 1) % EMU_FIFO_DEPTH;
				chip->fifo_level--;
			}
			tail = (chip->fifo_head + chip->fifo_level) % EMU_FIFO_DEPTH;
			emu_convert(chip, k, ktime_add_ns(chip->start, k * chip->period_ns), chip->fifo[tail]);
			chip->fifo_level++;
		}
		emu_set_fifo_status(chip);
	} else {
		u8 unread = *status & 0x07;
		u8 overrun = fresh > 1 ? 0x07 : unread;

		chip->counters[DROPPED] += fresh - 1 + (unread ? 1 : 0);
		*status |= 0x07 | ZYXDA | overrun << 4;
		if (*status & 0x70)
			*status |= ZYXOR;
		emu_convert(chip, index, ktime_add_ns(chip->start, index * chip->period_ns), &chip->regs[OUT_X_L]);
	}
	chip->next = index + 1;
}

static enum hrtimer_restart emu_tick(struct hrtimer *timer)
{
	struct emu_chip *chip = container_of(timer, struct emu_chip, timer);
	enum hrtimer_restart restart = HRTIMER_NORESTART;
	unsigned long flags;

	bool raise = false;

	spin_lock_irqsave(&emu_lock, flags);
	if (chip->running) {
		emu_produce(chip, ktime_get());
		hrtimer_set_expires(timer, emu_due(chip));
		restart = HRTIMER_RESTART;
		/* One edge per tick that finds new samples, including those a
		 * transfer made first: a driver on the line misses none. */
		raise = chip->irq && chip->next > chip->announced && emu_get(chip, chip->part->drdy_int) &&
			(!chip->part->six_axis || emu6_interrupt(chip));
		chip->announced = chip->next;
	}
	spin_unlock_irqrestore(&emu_lock, flags);
	if (raise)
		generic_handle_irq(chip->irq);
	return restart;
}

/* Points the timer at the next sample (or stops it), after a change of phase. */
static void emu_rearm(struct emu_chip *chip)
{
	unsigned long flags;
	bool running;
	ktime_t due = 0;

	mutex_lock(&chip->rearm_mutex);
	hrtimer_cancel(&chip->timer);
	spin_lock_irqsave(&emu_lock, flags);
	running = chip->running;
	if (running)
		due = emu_due(chip);
	chip->rearm = false;
	spin_unlock_irqrestore(&emu_lock, flags);
	if (running)
		hrtimer_start(&chip->timer, due, HRTIMER_MODE_ABS);
	mutex_unlock(&chip->rearm_mutex);
}

/* --- registers -------------------------------------------------------------- */

/* The family's control registers: rate, resolution, range and FIFO. */
static void emu_configure(struct emu_chip *chip)
{
	const struct emu_part *part = chip->part;
	bool was_fifo = chip->fifo_on;
	u8 low_power = emu_get(chip, part->low_power), range = emu_get(chip, part->range);

	chip->bits = low_power ? part->bits_low_power :
		emu_get(chip, part->high_resolution) ? part->bits_high_resolution : part->bits_normal;
	chip->mhz = (low_power ? part->odr_mhz_low_power : part->odr_mhz)[emu_get(chip, part->odr)];
	chip->running = emu_get(chip, part->power) && chip->mhz;
	if (range >= ARRAY_SIZE(part->ug_per_digit) || !part->ug_per_digit[range])
		range = 0;
	chip->ug_per_digit = part->ug_per_digit[range] << (part->finest_bits - chip->bits);

	chip->fifo_on = part->has_fifo && emu_get(chip, part->fifo_enable) && emu_get(chip, part->fifo_mode);
	chip->fifo_stops_when_full = emu_get(chip, part->fifo_mode) == 1;
	if (chip->fifo_on != was_fifo) {
		/* Made and never read: what the FIFO held (bypass empties it), or
		 * the sample waiting in the output registers. */
		chip->counters[DROPPED] += was_fifo ? chip->fifo_level :
			(chip->regs[STATUS_REG] & 0x07 ? 1 : 0);
		chip->fifo_level = 0;
		chip->regs[STATUS_REG] = 0;
	}
}

/* Works out what the control registers mean after a write: the part's own
 * reading of them, then a new phase where the clock changed. */
static void emu_derive(struct emu_chip *chip, ktime_t now)
{
	const struct emu_part *part = chip->part;
	bool was_running = chip->running;
	u32 old_mhz = chip->mhz;
	u8 old_bits = chip->bits;

	if (part->six_axis)
		emu6_configure(chip);
	else
		emu_configure(chip);
	if (chip->running && (!was_running || chip->mhz != old_mhz || chip->bits != old_bits)) {
		/* Power-up, a new rate or mode: a new phase, after the turn-on time. */
		chip->period_ns = emu_period_ns(chip->mhz);
		chip->start = now;
		chip->next = part->high_resolution.mask && chip->bits == part->bits_high_resolution ?
			part->turn_on_periods_high_resolution : part->turn_on_periods;
		chip->rearm = true;
	} else if (was_running && !chip->running) {
		chip->rearm = true;
	}
}

static void emu_write_reg(struct emu_chip *chip, u8 reg, u8 value, ktime_t now)
{
	const struct emu_part *part = chip->part;

	if (part->six_axis) {
		if (!emu6_write_reg(chip, reg, value, now))
			return;
	} else if (part->access[reg] != RW) {
		return;		/* read-only and reserved registers ignore writes */
	} else {
		chip->regs[reg] = value;
	}
	if (reg == part->boot.reg && (value & part->boot.mask))
		chip->boot_ends = ktime_add_ms(now, part->boot_ms);
	emu_derive(chip, now);
}

/* An output byte outside FIFO mode: a high byte clears its axis's DA and OR. */
static u8 emu_read_output(struct emu_chip *chip, u8 reg)
{
	u8 *status = &chip->regs[STATUS_REG];
	u8 offset = reg - STATUS_REG;

	if (offset % 2 == 0) {
		u8 bit = 1 << ((offset - 2) / 2);
		bool unread = *status & 0x07;

		*status &= ~(bit | bit << 4);
		*status = (*status & 0x07) ? (*status | ZYXDA) : (*status & ~ZYXDA);
		*status = (*status & 0x70) ? (*status | ZYXOR) : (*status & ~ZYXOR);
		if (unread && !(*status & 0x07))
			chip->counters[DELIVERED]++;
	}
	return chip->regs[reg];
}

/* An output byte in FIFO mode: the oldest sample's; OUT_Z_H pops it. */
static u8 emu_read_fifo(struct emu_chip *chip, u8 reg)
{
	unsigned int index = reg - OUT_X_L;
	u8 value;

	if (chip->fifo_level == 0)
		return chip->regs[reg];
	value = chip->fifo[chip->fifo_head][index];
	chip->regs[reg] = value;
	if (index == EMU_SAMPLE_BYTES - 1) {
		chip->fifo_head = (chip->fifo_head + 1) % EMU_FIFO_DEPTH;
		chip->fifo_level--;
		chip->counters[DELIVERED]++;
		emu_set_fifo_status(chip);
	}
	return value;
}

static u8 emu_fifo_source(struct emu_chip *chip)
{
	unsigned int level = chip->fifo_level;

	if (level == 0)
		chip->counters[EMPTY_READS]++;
	/* FSS counts to 31: a full FIFO (32) shows OVRN_FIFO. */
	return (level > emu_get(chip, chip->part->fifo_threshold) ? 0x80 : 0) |
		(level >= EMU_FIFO_DEPTH ? 0x40 : 0) | (level == 0 ? 0x20 : 0) |
		min(level, 31u);
}

static u8 emu_read_reg(struct emu_chip *chip, u8 reg, ktime_t now)
{
	const struct emu_part *part = chip->part;

	if (reg == part->boot.reg && chip->boot_ends && !ktime_before(now, chip->boot_ends)) {
		chip->regs[reg] &= ~part->boot.mask;	/* BOOT clears itself when done */
		chip->boot_ends = 0;
	}
	if (part->six_axis)
		return emu6_read_reg(chip, reg, now);
	if (reg > STATUS_REG && reg <= OUT_Z_H)
		return chip->fifo_on ? emu_read_fifo(chip, reg) : emu_read_output(chip, reg);
	if (reg == STATUS_REG && !(chip->regs[reg] & ZYXDA))
		chip->counters[EMPTY_READS]++;
	if (part->has_fifo && reg == part->fifo_source)
		return emu_fifo_source(chip);
	switch (part->access[reg]) {
	case RO:
	case RW:
		return chip->regs[reg];
	default:
		return 0;	/* reserved, or an interrupt source: nothing latched */
	}
}

/* The register after `reg` in a multi-byte transfer. */
static u8 emu_step(const struct emu_chip *chip, u8 reg)
{
	if (chip->part->six_axis)
		return emu6_step(chip, reg);
	/* With the FIFO on, the auto-increment wraps OUT_Z_H to OUT_X_L. */
	if (chip->fifo_on && reg == OUT_Z_H)
		return OUT_X_L;
	return (reg + 1) & 0x7f;
}

/* Whether a transfer walks the registers (AUTO_INCREMENT) or stays: the
 * sub-address's bit 7 in the family, CTRL3_C's IF_INC on the six-axis
 * part, whose sub-address has no such bit. */
static u8 emu_increment(const struct emu_chip *chip)
{
	if (chip->part->six_axis)
		return emu6_auto_increment(chip) ? AUTO_INCREMENT : 0;
	return chip->pointer & AUTO_INCREMENT;
}

static void emu_read(struct emu_chip *chip, u8 *buf, unsigned int len, ktime_t now)
{
	u8 reg = chip->pointer & 0x7f, increment = emu_increment(chip);
	unsigned int i;

	chip->counters[READS]++;
	for (i = 0; i < len; i++) {
		buf[i] = emu_read_reg(chip, reg, now);
		if (increment)
			reg = emu_step(chip, reg);
	}
	chip->pointer = reg | increment;
}

static void emu_write(struct emu_chip *chip, const u8 *buf, unsigned int len, ktime_t now)
{
	u8 reg = chip->pointer & 0x7f, increment = emu_increment(chip);
	unsigned int i;

	for (i = 0; i < len; i++) {
		emu_write_reg(chip, reg, buf[i], now);
		if (increment)
			reg = emu_step(chip, reg);
	}
	chip->pointer = reg | increment;
}

/* --- the adapter ------------------------------------------------------------ */

static struct emu_chip *emu_find(u16 addr)
{
	int i;

	for (i = 0; i < emu_nchips; i++)
		if (emu_chips[i]->addr == addr)
			return emu_chips[i];
	return NULL;
}

/* Each transfer is atomic against the timers, as a chip's burst is. */
static struct emu_chip *emu_begin(u16 addr, ktime_t now)
{
	struct emu_chip *chip = emu_find(addr);

	if (chip)
		emu_produce(chip, now);
	return chip;
}

static void emu_rearm_changed(void)
{
	int i;

	for (i = 0; i < emu_nchips; i++)
		if (READ_ONCE(emu_chips[i]->rearm))
			emu_rearm(emu_chips[i]);
}

/* Plain I2C: a write sets the sub-address (and writes on), a read reads on. */
static int emu_master_xfer(struct i2c_adapter *adapter, struct i2c_msg *msgs, int num)
{
	unsigned long flags;
	ktime_t now = ktime_get();
	int i, result = num;

	spin_lock_irqsave(&emu_lock, flags);
	for (i = 0; i < num; i++) {
		struct i2c_msg *msg = &msgs[i];
		struct emu_chip *chip;

		if (msg->flags & (I2C_M_TEN | I2C_M_RECV_LEN)) {
			result = -EOPNOTSUPP;
			break;
		}
		chip = (i > 0 && msg->addr == msgs[i - 1].addr) ? emu_find(msg->addr) : emu_begin(msg->addr, now);
		if (!chip) {
			result = -ENXIO;	/* nobody acknowledged the address */
			break;
		}
		if (msg->flags & I2C_M_RD) {
			emu_read(chip, msg->buf, msg->len, now);
		} else if (msg->len > 0) {
			chip->pointer = msg->buf[0];
			emu_write(chip, msg->buf + 1, msg->len - 1, now);
		}
	}
	spin_unlock_irqrestore(&emu_lock, flags);
	emu_rearm_changed();
	return result;
}

static int emu_smbus_xfer(struct i2c_adapter *adapter, u16 addr, unsigned short flags_,
			  char read_write, u8 command, int size, union i2c_smbus_data *data)
{
	unsigned long flags;
	ktime_t now = ktime_get();
	struct emu_chip *chip;
	bool read = read_write == I2C_SMBUS_READ;
	int result = 0;
	u8 word[2];

	spin_lock_irqsave(&emu_lock, flags);
	chip = emu_begin(addr, now);
	if (!chip) {
		result = -ENXIO;
		goto out;
	}
	switch (size) {
	case I2C_SMBUS_QUICK:
		break;
	case I2C_SMBUS_BYTE:
		if (read) {
			emu_read(chip, &data->byte, 1, now);
		} else {
			chip->pointer = command;
		}
		break;
	case I2C_SMBUS_BYTE_DATA:
		chip->pointer = command;
		if (read)
			emu_read(chip, &data->byte, 1, now);
		else
			emu_write(chip, &data->byte, 1, now);
		break;
	case I2C_SMBUS_WORD_DATA:
		chip->pointer = command;
		if (read) {
			emu_read(chip, word, 2, now);
			data->word = word[0] | word[1] << 8;
		} else {
			word[0] = data->word & 0xff;
			word[1] = data->word >> 8;
			emu_write(chip, word, 2, now);
		}
		break;
	case I2C_SMBUS_I2C_BLOCK_DATA:
		if (data->block[0] == 0 || data->block[0] > I2C_SMBUS_BLOCK_MAX) {
			result = -EINVAL;
			break;
		}
		chip->pointer = command;
		if (read)
			emu_read(chip, &data->block[1], data->block[0], now);
		else
			emu_write(chip, &data->block[1], data->block[0], now);
		break;
	default:
		result = -EOPNOTSUPP;
	}
out:
	spin_unlock_irqrestore(&emu_lock, flags);
	emu_rearm_changed();
	return result;
}

#define EMU_SMBUS_FUNCTIONS (I2C_FUNC_SMBUS_QUICK | I2C_FUNC_SMBUS_BYTE | \
	I2C_FUNC_SMBUS_BYTE_DATA | I2C_FUNC_SMBUS_WORD_DATA | I2C_FUNC_SMBUS_I2C_BLOCK)

static u32 emu_functionality(struct i2c_adapter *adapter)
{
	return EMU_SMBUS_FUNCTIONS | I2C_FUNC_I2C;
}

static u32 emu_smbus_functionality(struct i2c_adapter *adapter)
{
	return EMU_SMBUS_FUNCTIONS;
}

static const struct i2c_algorithm emu_algorithm = {
	.master_xfer = emu_master_xfer,
	.smbus_xfer = emu_smbus_xfer,
	.functionality = emu_functionality,
};

/* smbus_only: like i2c-stub, no plain transfers (acceld then reads a FIFO in blocks). */
static const struct i2c_algorithm emu_smbus_algorithm = {
	.smbus_xfer = emu_smbus_xfer,
	.functionality = emu_smbus_functionality,
};

static struct i2c_adapter emu_adapter = {
	.owner = THIS_MODULE,
	.name = "accel_emu",
};

/* --- sysfs: i2c-N/emu-0xNN/ ---------------------------------------------- */

#define to_emu_attribute(a) container_of(a, struct emu_attribute, attr)

static ssize_t emu_counter_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_attribute *ea = to_emu_attribute(attr);
	unsigned long flags;
	u64 value;

	spin_lock_irqsave(&emu_lock, flags);
	emu_produce(ea->chip, ktime_get());
	value = ea->chip->counters[ea->counter];
	spin_unlock_irqrestore(&emu_lock, flags);
	return sysfs_emit(buf, "%llu\n", value);
}

/* All counters at one instant, with that instant: "t_ns samples dropped
 * delivered reads empty_reads fifo_level", t_ns on CLOCK_MONOTONIC (the
 * clock of acceld's frame timestamps), so a check can cut a client's
 * stream at exactly the moments it read the chip's counts. */
static ssize_t emu_counters_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;
	u64 values[EMU_COUNTERS];
	unsigned long flags;
	unsigned int level;
	ktime_t now;

	spin_lock_irqsave(&emu_lock, flags);
	now = ktime_get();
	emu_produce(chip, now);
	memcpy(values, chip->counters, sizeof(values));
	level = chip->part->six_axis ? emu6_fifo_level(chip) : chip->fifo_level;
	spin_unlock_irqrestore(&emu_lock, flags);
	return sysfs_emit(buf, "%lld %llu %llu %llu %llu %llu %u\n", ktime_to_ns(now), values[MADE],
			  values[DROPPED], values[DELIVERED], values[READS], values[EMPTY_READS], level);
}

static ssize_t emu_part_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_emu_attribute(attr)->chip->part->name);
}

static ssize_t emu_odr_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;

	u32 mhz = READ_ONCE(chip->running) ? READ_ONCE(chip->mhz) : 0;

	/* Hz, with the fraction where there is one (the LSM6DSO's 12.5 Hz) */
	if (mhz % 1000)
		return sysfs_emit(buf, "%u.%03u\n", mhz / 1000, mhz % 1000);
	return sysfs_emit(buf, "%u\n", mhz / 1000);
}

static ssize_t emu_period_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;

	return sysfs_emit(buf, "%llu\n", READ_ONCE(chip->running) ? READ_ONCE(chip->period_ns) : 0);
}

static ssize_t emu_fifo_level_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;
	unsigned long flags;
	unsigned int level;

	spin_lock_irqsave(&emu_lock, flags);
	emu_produce(chip, ktime_get());
	level = chip->part->six_axis ? emu6_fifo_level(chip) : chip->fifo_level;
	spin_unlock_irqrestore(&emu_lock, flags);
	return sysfs_emit(buf, "%u\n", level);
}

static ssize_t emu_motion_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;

	if (chip->motion == TILT)
		return sysfs_emit(buf, "tilt\n");
	return sysfs_emit(buf, "%s%d %d %d\n", chip->motion == COUNT ? "count " : "",
			  chip->force_mg[0], chip->force_mg[1], chip->force_mg[2]);
}

/*
 * "tilt"; "X Y Z", a fixed specific force in mg (each within ±16 g); or
 * "count": X is the sample's number modulo 2^bits (a clipped digit pattern,
 * not a force), Y 0 and Z 1 g.
 */
static ssize_t emu_motion_store(struct device *dev, struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;
	unsigned long flags;
	s32 mg[3];
	int i;

	if (sysfs_streq(buf, "tilt") || sysfs_streq(buf, "count")) {
		spin_lock_irqsave(&emu_lock, flags);
		chip->motion = sysfs_streq(buf, "tilt") ? TILT : COUNT;
		chip->force_mg[0] = chip->force_mg[1] = 0;
		chip->force_mg[2] = 1000;
		spin_unlock_irqrestore(&emu_lock, flags);
		return count;
	}
	if (sscanf(buf, "%d %d %d", &mg[0], &mg[1], &mg[2]) != 3)
		return -EINVAL;
	for (i = 0; i < 3; i++)
		if (mg[i] < -16000 || mg[i] > 16000)
			return -ERANGE;
	spin_lock_irqsave(&emu_lock, flags);
	chip->motion = FIXED;
	memcpy(chip->force_mg, mg, sizeof(mg));
	spin_unlock_irqrestore(&emu_lock, flags);
	return count;
}

static ssize_t emu_rate_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;

	return sysfs_emit(buf, "%d %d %d\n", chip->rate_mdps[0], chip->rate_mdps[1], chip->rate_mdps[2]);
}

/* "X Y Z": the fixed motion's rotation rate in mdps (each within ±4000 dps),
 * what a gyroscope reads while the force stays as written. */
static ssize_t emu_rate_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct emu_chip *chip = to_emu_attribute(attr)->chip;
	unsigned long flags;
	s32 mdps[3];
	int i;

	if (sscanf(buf, "%d %d %d", &mdps[0], &mdps[1], &mdps[2]) != 3)
		return -EINVAL;
	for (i = 0; i < 3; i++)
		if (mdps[i] < -4000000 || mdps[i] > 4000000)
			return -ERANGE;
	spin_lock_irqsave(&emu_lock, flags);
	memcpy(chip->rate_mdps, mdps, sizeof(mdps));
	spin_unlock_irqrestore(&emu_lock, flags);
	return count;
}

static void emu_attribute(struct emu_chip *chip, int n, const char *name, umode_t mode, int counter,
			  ssize_t (*show)(struct device *, struct device_attribute *, char *),
			  ssize_t (*store)(struct device *, struct device_attribute *, const char *, size_t))
{
	struct emu_attribute *ea = &chip->attrs[n];

	sysfs_attr_init(&ea->attr.attr);
	ea->attr.attr.name = name;
	ea->attr.attr.mode = mode;
	ea->attr.show = show;
	ea->attr.store = store;
	ea->chip = chip;
	ea->counter = counter;
	chip->attr_list[n] = &ea->attr.attr;
}

static void emu_attributes(struct emu_chip *chip)
{
	int n;

	for (n = 0; n < EMU_COUNTERS; n++)
		emu_attribute(chip, n, emu_counter_names[n], 0444, n, emu_counter_show, NULL);
	emu_attribute(chip, n++, "counters", 0444, -1, emu_counters_show, NULL);
	emu_attribute(chip, n++, "part", 0444, -1, emu_part_show, NULL);
	emu_attribute(chip, n++, "odr", 0444, -1, emu_odr_show, NULL);
	emu_attribute(chip, n++, "period_ns", 0444, -1, emu_period_show, NULL);
	emu_attribute(chip, n++, "fifo_level", 0444, -1, emu_fifo_level_show, NULL);
	emu_attribute(chip, n++, "motion", 0644, -1, emu_motion_show, emu_motion_store);
	emu_attribute(chip, n++, "rate", 0644, -1, emu_rate_show, emu_rate_store);
	chip->attr_list[n] = NULL;
	snprintf(chip->group_name, sizeof(chip->group_name), "emu-0x%02x", chip->addr);
	chip->group.name = chip->group_name;
	chip->group.attrs = chip->attr_list;
}

/* --- parameters ------------------------------------------------------------- */

/* A new clock error takes effect at the next sample, keeping its instant. */
static int emu_clock_ppm_set(const char *value, const struct kernel_param *kp)
{
	unsigned long flags;
	int ppm, error, i;

	error = kstrtoint(value, 0, &ppm);
	if (error) {
		pr_err("accel_emu: clock_ppm '%s' is not a whole number of ppm\n", value);
		return error;
	}
	if (ppm < -EMU_CLOCK_PPM_LIMIT || ppm > EMU_CLOCK_PPM_LIMIT) {
		pr_err("accel_emu: clock_ppm %d is out of bounds: the datasheets allow the output data rate ±10 %% off (-%d..%d)\n",
		       ppm, EMU_CLOCK_PPM_LIMIT, EMU_CLOCK_PPM_LIMIT);
		return -EINVAL;
	}
	mutex_lock(&emu_config_mutex);
	spin_lock_irqsave(&emu_lock, flags);
	clock_ppm = ppm;
	for (i = 0; i < emu_nchips; i++) {
		struct emu_chip *chip = emu_chips[i];
		ktime_t due;

		if (!chip->running)
			continue;
		emu_produce(chip, ktime_get());
		due = emu_due(chip);
		chip->period_ns = emu_period_ns(chip->mhz);
		chip->start = ktime_sub_ns(due, chip->period_ns);
		chip->next = 1;
		chip->rearm = true;
	}
	spin_unlock_irqrestore(&emu_lock, flags);
	emu_rearm_changed();
	mutex_unlock(&emu_config_mutex);
	return 0;
}

static const struct kernel_param_ops emu_clock_ppm_ops = {
	.set = emu_clock_ppm_set,
	.get = param_get_int,
};
module_param_cb(clock_ppm, &emu_clock_ppm_ops, &clock_ppm, 0644);
MODULE_PARM_DESC(clock_ppm, "The chips' clock error in ppm, -100000..100000 (±10 %, the datasheets' tolerance): 30000 is 3 % fast");
module_param(parts, charp, 0444);
MODULE_PARM_DESC(parts, "The chips, PART@ADDRESS separated by commas (parts: lis302dl, lis3dh, lsm6dso; at most 4): default lis302dl@0x1c,lis3dh@0x18");
module_param(smbus_only, bool, 0444);
MODULE_PARM_DESC(smbus_only, "Offer SMBus transfers only, no plain I2C (as i2c-stub does)");

/* Parses `parts` into chips; says exactly what is wrong otherwise. */
static int emu_parse_parts(void)
{
	char *list, *cursor, *item;
	int error = 0;

	list = kstrdup(parts ? parts : "", GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	cursor = list;
	while ((item = strsep(&cursor, ",")) != NULL) {
		char *at = strchr(item, '@');
		const struct emu_part *part = NULL;
		struct emu_chip *chip;
		unsigned int addr, i;

		if (!*item)
			continue;
		if (!at || kstrtouint(at + 1, 0, &addr)) {
			pr_err("accel_emu: parts: '%s' is not PART@ADDRESS (such as lis302dl@0x1c)\n", item);
			error = -EINVAL;
			break;
		}
		*at = '\0';
		for (i = 0; i < ARRAY_SIZE(emu_all_parts); i++)
			if (!strcasecmp(item, emu_all_parts[i]->name))
				part = emu_all_parts[i];
		if (!part) {
			pr_err("accel_emu: parts: unknown part '%s' (known: lis302dl, lis3dh, lsm6dso)\n", item);
			error = -EINVAL;
			break;
		}
		if (addr < 0x08 || addr > 0x77) {
			pr_err("accel_emu: parts: address 0x%x for %s is not a 7-bit device address (0x08..0x77)\n",
			       addr, part->name);
			error = -EINVAL;
			break;
		}
		if (emu_find(addr)) {
			pr_err("accel_emu: parts: two chips at 0x%02x\n", addr);
			error = -EINVAL;
			break;
		}
		if (emu_nchips == EMU_MAX_CHIPS) {
			pr_err("accel_emu: parts: at most %d chips\n", EMU_MAX_CHIPS);
			error = -EINVAL;
			break;
		}
		chip = kzalloc(sizeof(*chip), GFP_KERNEL);
		if (!chip) {
			error = -ENOMEM;
			break;
		}
		chip->part = part;
		chip->addr = addr;
		chip->motion = TILT;
		memcpy(chip->regs, part->reset, sizeof(chip->regs));
		emu_derive(chip, ktime_get());	/* the reset state: powered down */
		mutex_init(&chip->rearm_mutex);
		hrtimer_init(&chip->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
		chip->timer.function = emu_tick;
		emu_attributes(chip);
		emu_groups[emu_nchips] = &chip->group;
		emu_chips[emu_nchips++] = chip;
	}
	kfree(list);
	if (!error && emu_nchips == 0) {
		pr_err("accel_emu: parts: no chips named\n");
		error = -EINVAL;
	}
	return error;
}

static void emu_free_chips(void)
{
	while (emu_nchips > 0) {
		struct emu_chip *chip = emu_chips[--emu_nchips];

		hrtimer_cancel(&chip->timer);
		kfree(chip);
		emu_chips[emu_nchips] = NULL;
		emu_groups[emu_nchips] = NULL;
	}
}

/* --- the INT lines --------------------------------------------------------- */

static struct fwnode_handle *emu_irq_fwnode;
static struct irq_domain *emu_irq_domain;

static void emu_irq_noop(struct irq_data *data)
{
}

static int emu_irq_set_type(struct irq_data *data, unsigned int type)
{
	return 0;	/* a wire: any type is what the chip drives */
}

static struct irq_chip emu_irq_chip = {
	.name = "accel_emu",
	.irq_mask = emu_irq_noop,
	.irq_unmask = emu_irq_noop,
	.irq_set_type = emu_irq_set_type,
};

/* An interrupt per chip whose part has an INT line, rising edge. */
static int emu_irq_setup(void)
{
	int i;

	emu_irq_fwnode = irq_domain_alloc_named_fwnode("accel_emu");
	if (!emu_irq_fwnode)
		return -ENOMEM;
	emu_irq_domain = irq_domain_create_linear(emu_irq_fwnode, EMU_MAX_CHIPS, &irq_domain_simple_ops, NULL);
	if (!emu_irq_domain)
		return -ENOMEM;
	for (i = 0; i < emu_nchips; i++) {
		struct emu_chip *chip = emu_chips[i];
		unsigned int virq;

		if (!chip->part->drdy_int.mask)
			continue;
		virq = irq_create_mapping(emu_irq_domain, i);
		if (!virq)
			return -ENOMEM;
		irq_set_chip_and_handler(virq, &emu_irq_chip, handle_simple_irq);
		irq_set_irq_type(virq, IRQ_TYPE_EDGE_RISING);
		chip->irq = virq;
	}
	return 0;
}

static void emu_irq_teardown(void)
{
	int i;

	for (i = 0; i < emu_nchips; i++)
		if (emu_chips[i]->irq)
			irq_dispose_mapping(emu_chips[i]->irq);
	if (emu_irq_domain)
		irq_domain_remove(emu_irq_domain);
	if (emu_irq_fwnode)
		irq_domain_free_fwnode(emu_irq_fwnode);
	emu_irq_domain = NULL;
	emu_irq_fwnode = NULL;
}

/*
 * A client made on the adapter at a chip's address (new_device) gets the
 * chip's INT line, as a device tree's `interrupts` would give it: before
 * its driver probes, which then makes the chip's own trigger. It goes in
 * init_irq: i2c_device_probe() starts from client->irq = client->init_irq,
 * so a line set in client->irq alone is gone by the time the driver looks.
 */
static int emu_i2c_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct i2c_client *client = i2c_verify_client(data);
	struct emu_chip *chip;

	if (action != BUS_NOTIFY_ADD_DEVICE || !client || client->adapter != &emu_adapter || client->init_irq)
		return NOTIFY_DONE;
	chip = emu_find(client->addr);
	if (chip && chip->irq) {
		client->init_irq = chip->irq;
		client->irq = chip->irq;
	}
	return NOTIFY_OK;
}

static struct notifier_block emu_i2c_notifier = {
	.notifier_call = emu_i2c_notify,
};

static int __init emu_init(void)
{
	int error, i;

	emu_epoch = ktime_get();
	mutex_lock(&emu_config_mutex);
	error = emu_parse_parts();
	if (error)
		goto fail;
	error = emu_irq_setup();
	if (error)
		goto fail;
	error = bus_register_notifier(&i2c_bus_type, &emu_i2c_notifier);
	if (error)
		goto fail;
	emu_adapter.algo = smbus_only ? &emu_smbus_algorithm : &emu_algorithm;
	emu_adapter.dev.groups = emu_groups;
	error = i2c_add_adapter(&emu_adapter);
	if (error) {
		bus_unregister_notifier(&i2c_bus_type, &emu_i2c_notifier);
		goto fail;
	}
	mutex_unlock(&emu_config_mutex);
	for (i = 0; i < emu_nchips; i++)
		pr_info("accel_emu: i2c-%d: %s at 0x%02x, clock %+d ppm%s\n", emu_adapter.nr,
			emu_chips[i]->part->name, emu_chips[i]->addr, clock_ppm, smbus_only ? ", SMBus only" : "");
	return 0;
fail:
	emu_irq_teardown();
	emu_free_chips();
	mutex_unlock(&emu_config_mutex);
	return error;
}

static void __exit emu_exit(void)
{
	i2c_del_adapter(&emu_adapter);
	bus_unregister_notifier(&i2c_bus_type, &emu_i2c_notifier);
	mutex_lock(&emu_config_mutex);
	emu_irq_teardown();
	emu_free_chips();
	mutex_unlock(&emu_config_mutex);
}

module_init(emu_init);
module_exit(emu_exit);
MODULE_DESCRIPTION("LIS302DL-class accelerometers on an emulated I2C adapter, for acceld's tests");
MODULE_AUTHOR("acceld maintainers");
MODULE_LICENSE("GPL");
