// SPDX-License-Identifier: GPL-2.0-only
/*
 * accel_emu's chip core: the LIS302DL family as the datasheets describe
 * it, on its own clock (the I2C adapter, sysfs and the INT pins are in
 * files of their own, accel_emu.h lists them):
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
 * - motion: a slow tilt, a fixed force written to sysfs, each sample's
 *   number, so a reader can tell exactly which samples it got, or a shake
 *   about the fixed force from the instant it was written;
 * - the inertial interrupt units (the LIS302DL's FF_WU_1/2, the LIS3DH's
 *   IA1/IA2): thresholds on each axis's magnitude, OR or AND, duration,
 *   latched or not, their source registers; the high-pass filter on a
 *   unit's path (HP_FF_WU1/2, HP_IA1/2), its reference set by reading
 *   HP_FILTER_RESET or REFERENCE;
 * - the interrupt signals each pin can carry (data ready, the FIFO's
 *   watermark and overrun, the inertial units), routed by the part's own
 *   registers as data in its table (emu_gpio.c drives the pins from them).
 *
 * Not modelled: the high-pass filter on the outputs (FDS), its cut-off
 * choices (HP_coeff, HPCF: always ODR / 48) and the LIS3DH's other filter
 * modes (HPM: always normal), 6D recognition, the click unit, the
 * LIS3DH's sleep-to-wake (ACT_THS, ACT_DUR), BDU (every sample is written
 * whole), the LIS3DH's ADC.
 *
 * ST's six-axis LSM6DSO (WHO_AM_I 0x6c), with its gyroscope and tagged
 * FIFO, is emu_six_axis.c's: the kernel's st_lsm6dsx is its peer.
 */
#include "accel_emu.h"

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
 * Facts as in Sources/AccelParts/ChipProfile+Parts.swift (docs/DRIVER.md
 * cites them); the LIS3DH's turn-on is 7/ODR in high-resolution mode and
 * 1/ODR otherwise (datasheet Table 11). Self-test forces are the middle of
 * the published limits in the limits' own conditions: LIS302DL -17/17/17
 * digits of 18 mg, LIS3DH 188 digits of 4 mg (normal mode, ±2 g).
 * The pins: LIS302DL CTRL_REG3 (IHL bit 7 active low, PP_OD bit 6);
 * LIS3DH CTRL_REG3 for INT1 (I1_CLICK, I1_IA1, I1_IA2, I1_ZYXDA, I1_321DA,
 * I1_WTM, I1_OVERRUN from bit 7 down) and CTRL_REG6 for INT2 (I2_CLICK,
 * I2_IA1, I2_IA2, I2_BOOT, I2_ACT from bit 7 down; INT_POLARITY bit 1 for
 * both pins): no data ready on INT2.
 */
const struct emu_part emu_lis302dl = {
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
	/* CTRL_REG3 selects one source per pin by code, I1CFG (bits 2:0) for
	 * INT1 and I2CFG (bits 5:3) for INT2: 000 GND, 001 FF_WU_1, 010
	 * FF_WU_2, 011 either, 100 data ready, 111 click (101, 110: GND). */
	.pins = {
		{
			{
				{ { 0x22, 0x07 }, 1, BIT(SIG_WAKE1) },
				{ { 0x22, 0x07 }, 2, BIT(SIG_WAKE2) },
				{ { 0x22, 0x07 }, 3, BIT(SIG_WAKE1) | BIT(SIG_WAKE2) },
				{ { 0x22, 0x07 }, 4, BIT(SIG_DRDY) },
				{ { 0x22, 0x07 }, 7, BIT(SIG_UNMODELLED) },
			},
			{ 0x22, 0x80 }, { 0x22, 0x40 },
		},
		{
			{
				{ { 0x22, 0x38 }, 1, BIT(SIG_WAKE1) },
				{ { 0x22, 0x38 }, 2, BIT(SIG_WAKE2) },
				{ { 0x22, 0x38 }, 3, BIT(SIG_WAKE1) | BIT(SIG_WAKE2) },
				{ { 0x22, 0x38 }, 4, BIT(SIG_DRDY) },
				{ { 0x22, 0x38 }, 7, BIT(SIG_UNMODELLED) },
			},
			{ 0x22, 0x80 }, { 0x22, 0x40 },
		},
	},
	/* FF_WU_CFG_1..FF_WU_DURATION_1 and _2 (LIR: CFG bit 6), 18 mg a step
	 * at ±2 g; CTRL_REG2's HP_FF_WU1 (bit 2) and HP_FF_WU2 (bit 3) put the
	 * high-pass filter on their paths, HP_FILTER_RESET (0x23) resets it */
	.inertial = {
		{ 0x30, 0x31, 0x32, 0x33, { 0x30, 0x40 }, { 18, 72 }, { 0x21, 0x04 } },
		{ 0x34, 0x35, 0x36, 0x37, { 0x34, 0x40 }, { 18, 72 }, { 0x21, 0x08 } },
	},
	.high_pass_reset = 0x23,
};

const struct emu_part emu_lis3dh = {
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
	.pins = {
		{
			{
				{ { 0x22, 0x80 }, 1, BIT(SIG_UNMODELLED) },	/* I1_CLICK */
				{ { 0x22, 0x40 }, 1, BIT(SIG_WAKE1) },		/* I1_IA1 */
				{ { 0x22, 0x20 }, 1, BIT(SIG_WAKE2) },		/* I1_IA2 */
				{ { 0x22, 0x10 }, 1, BIT(SIG_DRDY) },		/* I1_ZYXDA */
				{ { 0x22, 0x08 }, 1, BIT(SIG_UNMODELLED) },	/* I1_321DA */
				{ { 0x22, 0x04 }, 1, BIT(SIG_FIFO_WTM) },	/* I1_WTM */
				{ { 0x22, 0x02 }, 1, BIT(SIG_FIFO_OVR) },	/* I1_OVERRUN */
			},
			{ 0x25, 0x02 },
		},
		{
			{
				{ { 0x25, 0x80 }, 1, BIT(SIG_UNMODELLED) },	/* I2_CLICK */
				{ { 0x25, 0x40 }, 1, BIT(SIG_WAKE1) },		/* I2_IA1 */
				{ { 0x25, 0x20 }, 1, BIT(SIG_WAKE2) },		/* I2_IA2 */
				{ { 0x25, 0x10 }, 1, BIT(SIG_UNMODELLED) },	/* I2_BOOT */
				{ { 0x25, 0x08 }, 1, BIT(SIG_UNMODELLED) },	/* I2_ACT */
			},
			{ 0x25, 0x02 },
		},
	},
	/* INT1_CFG..INT1_DURATION and INT2's (LIR_INT1, LIR_INT2: CTRL_REG5
	 * bits 3 and 1), 16, 32, 62 and 186 mg a step by range; CTRL_REG2's
	 * HP_IA1 (bit 0) and HP_IA2 (bit 1) put the high-pass filter on their
	 * paths, reading REFERENCE (0x26) resets it (HPM's normal mode) */
	.inertial = {
		{ 0x30, 0x31, 0x32, 0x33, { 0x24, 0x08 }, { 16, 32, 62, 186 }, { 0x21, 0x01 } },
		{ 0x34, 0x35, 0x36, 0x37, { 0x24, 0x02 }, { 16, 32, 62, 186 }, { 0x21, 0x02 } },
	},
	.high_pass_reset = 0x26,
};

static ktime_t emu_epoch;	/* t = 0 for the motion */

/* --- time ------------------------------------------------------------------ */

u64 emu_period_ns(u32 mhz)
{
	/* 1e9 ns / (mhz / 1000 × (1 + ppm / 1e6)) */
	return div64_u64(1000000000000000000ULL, (u64)mhz * (1000000 + emu_clock_ppm));
}

ktime_t emu_due(const struct emu_chip *chip)
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
		s64 since = ktime_to_ns(ktime_sub(instant, chip->shake_start));

		memcpy(mg, chip->force_mg, sizeof(chip->force_mg));
		/* The shake: a square wave on X, whole at the first sample. */
		if (chip->motion == SHAKE && since >= 0 && since < EMU_SHAKE_NS)
			mg[0] += div_u64(since, EMU_SHAKE_HALF_NS) % 2 ? -EMU_SHAKE_MG : EMU_SHAKE_MG;
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
/* The force the chip senses at an instant, in mg: the motion's, and the
 * self-test's deflection while it runs. */
void emu_sensed(const struct emu_chip *chip, ktime_t instant, s32 mg[3])
{
	const struct emu_part *part = chip->part;
	u8 test = emu_get(chip, part->self_test);
	int axis;

	emu_motion(chip, instant, mg);
	for (axis = 0; axis < 3; axis++) {
		if (test == part->self_test_code)
			mg[axis] += part->self_test_mg[axis];
		else if (test)
			mg[axis] -= part->self_test_mg[axis];
	}
}

void emu_convert(const struct emu_chip *chip, u64 index, ktime_t instant, u8 out[EMU_SAMPLE_BYTES])
{
	s32 limit = 1 << (chip->bits - 1), mg[3];
	int axis;

	emu_sensed(chip, instant, mg);
	for (axis = 0; axis < 3; axis++) {
		s32 digits;
		u16 word;

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

/*
 * The high-pass filter the family can put on an inertial unit's path, as
 * the Swift chip model has it (Sources/AccelDriver/ChipModel+WakeUp.swift):
 * first order, its cut-off the parts' first coefficient, ODR / 48; per
 * sample filtered = g - reference, then reference += filtered × alpha,
 * alpha = 1 / (6 × 8 / 2π + 1) ≈ 0.1157, here 7586 / 65536. Forces in mg
 * × 65536 (no floating point in the kernel). The filter runs on the
 * samples made while a unit with an event enabled has it on its path (the
 * model's: while the unit is armed) and keeps its reference otherwise;
 * the reference is 0 from loading until the reset register is read, so
 * gravity fires a unit armed without that read, as on the chip.
 */
#define EMU_HIGH_PASS_ALPHA 7586	/* 0.11575 × 65536 */

static bool emu_high_pass_on(const struct emu_chip *chip)
{
	int u;

	for (u = 0; u < EMU_INERTIAL; u++) {
		const struct emu_inertial_map *map = &chip->part->inertial[u];

		if (map->cfg && (chip->regs[map->cfg] & 0x3f) && emu_get(chip, map->high_pass))
			return true;
	}
	return false;
}

/* HP_FILTER_RESET or REFERENCE read: the reference is the present force,
 * so the board's attitude reads as zero. */
static void emu_high_pass_reset(struct emu_chip *chip, ktime_t now)
{
	s32 mg[3];
	int axis;

	emu_sensed(chip, now, mg);
	for (axis = 0; axis < 3; axis++)
		chip->high_pass_reference[axis] = (s64)mg[axis] * 65536;
}

/*
 * The family's inertial units (free fall and wake-up) on one sample: per
 * axis a high event when the force's magnitude is over the threshold and
 * a low event when it is under; the enabled events combined by OR, or by
 * AND (AOI); IA once that held DURATION + 1 samples in a row. Latched
 * (LIR), IA stays until the source register is read; otherwise it follows
 * the events. A unit with the high-pass filter on its path compares the
 * filtered force (`filtered`, mg × 65536); the others the force itself,
 * gravity included. The LIS3DH's 6D recognition is not modelled.
 */
static void emu_inertial_sample(struct emu_chip *chip, const s32 mg[3], const s64 filtered[3])
{
	const struct emu_part *part = chip->part;
	u8 range = emu_get(chip, part->range);
	int u, axis;

	for (u = 0; u < EMU_INERTIAL; u++) {
		const struct emu_inertial_map *map = &part->inertial[u];
		struct emu_inertial *unit = &chip->inertial[u];
		u8 cfg = chip->regs[map->cfg], enabled = cfg & 0x3f, events = 0;
		bool high_pass, met;
		s64 threshold;

		if (!map->cfg)
			continue;
		high_pass = emu_get(chip, map->high_pass);
		threshold = (s64)((chip->regs[map->threshold] & 0x7f) *
			map->mg_per_threshold[range < ARRAY_SIZE(map->mg_per_threshold) ? range : 0]) * 65536;
		for (axis = 0; axis < 3; axis++) {
			s64 magnitude = high_pass ? abs(filtered[axis]) : (s64)abs(mg[axis]) * 65536;

			if (magnitude > threshold)
				events |= 2 << (2 * axis);	/* XH, YH, ZH */
			else if (magnitude < threshold)
				events |= 1 << (2 * axis);	/* XL, YL, ZL */
		}
		met = enabled && ((cfg & 0x80) ? (events & enabled) == enabled : (events & enabled));
		unit->count = met ? min(unit->count + 1, 255u) : 0;
		if (met && unit->count > (chip->regs[map->duration] & 0x7f))
			unit->source = 0x40 | (events & enabled);
		else if (!emu_get(chip, map->latch))
			unit->source = 0;
	}
}

/* Samples first..last through the high-pass filter, while a unit has it on
 * its path, and the inertial units (the last 256 at most: the filter has
 * settled long before). */
static void emu_inertial(struct emu_chip *chip, u64 first, u64 last)
{
	bool high_pass = emu_high_pass_on(chip);
	s64 filtered[3] = { 0 };
	s32 mg[3];
	int axis;
	u64 k;

	if (!chip->part->inertial[0].cfg)
		return;
	if (last - first > 255)
		first = last - 255;
	for (k = first; k <= last; k++) {
		emu_sensed(chip, ktime_add_ns(chip->start, k * chip->period_ns), mg);
		for (axis = 0; high_pass && axis < 3; axis++) {
			filtered[axis] = (s64)mg[axis] * 65536 - chip->high_pass_reference[axis];
			/* (an arithmetic shift: the kernel's compilers' >> on s64) */
			chip->high_pass_reference[axis] += (filtered[axis] * EMU_HIGH_PASS_ALPHA) >> 16;
		}
		emu_inertial_sample(chip, mg, filtered);
	}
}

/* A unit's source register read: what it holds; a latched IA is released. */
static bool emu_inertial_read(struct emu_chip *chip, u8 reg, u8 *value)
{
	int u;

	for (u = 0; u < EMU_INERTIAL; u++) {
		const struct emu_inertial_map *map = &chip->part->inertial[u];

		if (!map->cfg || reg != map->source)
			continue;
		*value = chip->inertial[u].source;
		if (emu_get(chip, map->latch))
			chip->inertial[u].source = 0;
		return true;
	}
	return false;
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
void emu_produce(struct emu_chip *chip, ktime_t now)
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
	emu_inertial(chip, chip->next, index);
	chip->next = index + 1;
	emu_pins_update(chip);
}

static enum hrtimer_restart emu_tick(struct hrtimer *timer)
{
	struct emu_chip *chip = container_of(timer, struct emu_chip, timer);
	enum hrtimer_restart restart = HRTIMER_NORESTART;
	unsigned long flags;
	bool raise = false;

	spin_lock_irqsave(&emu_lock, flags);
	if (chip->running) {
		/* The pins change here, at the sample's instant (emu_produce). */
		emu_produce(chip, ktime_get());
		hrtimer_set_expires(timer, emu_due(chip));
		restart = HRTIMER_RESTART;
		/* The peers' irq: one edge per tick that finds new samples,
		 * including those a transfer made first, so a driver on it
		 * misses none. */
		raise = chip->irq && chip->next > chip->announced && emu_get(chip, chip->part->drdy_int) &&
			(!chip->part->six_axis || emu6_interrupt(chip));
		chip->announced = chip->next;
	}
	emu_unlock_and_raise(flags);
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
	u8 value;

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
	if (emu_inertial_read(chip, reg, &value))
		return value;
	if (part->high_pass_reset && reg == part->high_pass_reset)
		emu_high_pass_reset(chip, now);	/* and reads 0, as CLEARS */
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

void emu_read(struct emu_chip *chip, u8 *buf, unsigned int len, ktime_t now)
{
	u8 reg = chip->pointer & 0x7f, increment = emu_increment(chip);
	u64 delivered = chip->counters[DELIVERED];
	unsigned int i;
	int pin;

	chip->counters[READS]++;
	for (i = 0; i < len; i++) {
		buf[i] = emu_read_reg(chip, reg, now);
		if (increment)
			reg = emu_step(chip, reg);
	}
	chip->pointer = reg | increment;
	/* The pins' probes: the first read that delivered a sample after the rise. */
	for (pin = 0; chip->counters[DELIVERED] > delivered && pin < EMU_PINS; pin++)
		if (chip->lines[pin].probe_rise && !chip->lines[pin].probe_read)
			chip->lines[pin].probe_read = now;
	emu_pins_update(chip);	/* data ready read, the FIFO drained */
}

void emu_write(struct emu_chip *chip, const u8 *buf, unsigned int len, ktime_t now)
{
	u8 reg = chip->pointer & 0x7f, increment = emu_increment(chip);
	unsigned int i;

	for (i = 0; i < len; i++) {
		emu_write_reg(chip, reg, buf[i], now);
		if (increment)
			reg = emu_step(chip, reg);
	}
	chip->pointer = reg | increment;
	emu_pins_update(chip);	/* routing, polarity, a FIFO emptied */
}

/* Points the timer of each chip whose phase changed at its next sample
 * (outside emu_lock: hrtimer_cancel waits for a running tick). */
void emu_rearm_changed(void)
{
	int i;

	for (i = 0; i < emu_nchips; i++)
		if (READ_ONCE(emu_chips[i]->rearm))
			emu_rearm(emu_chips[i]);
}

/* --- the interrupt signals ------------------------------------------------- */

/*
 * The chip's interrupt signals now, as BIT(enum emu_signal): data ready
 * while STATUS's ZYXDA says a sample waits (it falls when the sample is
 * read); the LIS3DH's watermark while the FIFO holds more than FTH samples
 * (FIFO_SRC's WTM: the application note's "up to FTH + 1 samples" at its
 * rise) and its overrun while the FIFO is full.
 */
u16 emu_signals(const struct emu_chip *chip)
{
	const struct emu_part *part = chip->part;
	u16 signals = 0;

	if (part->six_axis)
		return emu6_signals(chip);
	if (chip->regs[STATUS_REG] & ZYXDA)
		signals |= BIT(SIG_DRDY);
	if (chip->inertial[0].source & 0x40)
		signals |= BIT(SIG_WAKE1);
	if (chip->inertial[1].source & 0x40)
		signals |= BIT(SIG_WAKE2);
	if (chip->fifo_on && chip->fifo_level > emu_get(chip, part->fifo_threshold))
		signals |= BIT(SIG_FIFO_WTM);
	if (chip->fifo_on && chip->fifo_level == EMU_FIFO_DEPTH)
		signals |= BIT(SIG_FIFO_OVR);
	return signals;
}

unsigned int emu_fifo_level(const struct emu_chip *chip)
{
	return chip->part->six_axis ? emu6_fifo_level(chip) : chip->fifo_level;
}

/* --- a chip ------------------------------------------------------------------ */

void emu_core_init(void)
{
	emu_epoch = ktime_get();
}

/* A chip of its part at its address, in the part's reset state. */
void emu_chip_init(struct emu_chip *chip)
{
	chip->motion = TILT;
	memcpy(chip->regs, chip->part->reset, sizeof(chip->regs));
	emu_derive(chip, ktime_get());	/* the reset state: powered down */
	mutex_init(&chip->rearm_mutex);
	hrtimer_init(&chip->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	chip->timer.function = emu_tick;
}
