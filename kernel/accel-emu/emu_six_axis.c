// SPDX-License-Identifier: GPL-2.0-only
/*
 * accel_emu's LSM6DSO: ST's six-axis part (an accelerometer and a
 * gyroscope), enough of it that the kernel's own st_lsm6dsx drives it as
 * it would the chip on a board, and acceld reads it on i2c-dev. Facts from
 * the LSM6DSO datasheet (DS12140), its FIFO application note (AN5192) and
 * the registers st_lsm6dsx uses (st_lsm6dsx_core.c, st_lsm6dsx_buffer.c):
 *
 * - the register map and reset values (WHO_AM_I 0x6c, IF_INC on); SW_RESET
 *   brings the reset values back, BOOT reads back 1 for a while;
 * - CTRL3_C's IF_INC walks the registers in a burst; the FIFO's output
 *   wraps from FIFO_DATA_OUT_Z_H (0x7e) to FIFO_DATA_OUT_TAG (0x78), so a
 *   burst reads word after word, as st_lsm6dsx reads four at a time;
 * - the accelerometer (CTRL1_XL) and the gyroscope (CTRL2_G) each on or
 *   off, their ranges (FS_XL; FS_G with FS_125) and self-tests (CTRL5_C);
 *   one clock, at the faster of the two rates, makes both: a part running
 *   them at different rates is not modelled;
 * - STATUS_REG's XLDA and GDA, each cleared by reading its last output byte;
 * - the FIFO: bypass, FIFO and continuous modes (FIFO_CTRL4), batching each
 *   sensor (FIFO_CTRL3's BDR fields) and the timestamp (DEC_TS_BATCH) as
 *   tagged 7-byte words, 512 of them; FIFO_STATUS1/2 with the watermark
 *   (FIFO_CTRL1/2), overrun and full flags;
 * - TIMESTAMP0..3 counting 25 µs from 0xaa written to TIMESTAMP2, as
 *   st_lsm6dsx resets it (INTERNAL_FREQ_FINE reads 0: no trim);
 * - INT1 and INT2 (INT1_CTRL, INT2_CTRL; CTRL3_C's H_LACTIVE and PP_OD):
 *   data ready (latched: until the output is read), the FIFO's watermark,
 *   overrun and full, as the part's table routes them (emu_gpio.c drives
 *   the pins); the peers' irq: the FIFO's watermark, or data ready;
 * - the wake-up function (WAKE_UP_THS, WAKE_UP_DUR, WAKE_UP_SRC, on the
 *   slope filter, or with TAP_CFG0's SLOPE_FDS on the high-pass filter at
 *   CTRL8_XL's HPCF_XL cut-off, which runs on every sample), routed by
 *   MD1_CFG's INT1_WU and MD2_CFG's INT2_WU;
 * - the sensor hub's bank behind FUNC_CFG_ACCESS, with no sensor behind it:
 *   st_lsm6dsx looks for magnetometers there and finds none.
 *
 * Not modelled: the other embedded functions (pedometer, tilt, tap, free
 * fall, 6D, activity/inactivity and sleep), the high-pass filter on the
 * output (HP_SLOPE_XL_EN), pulsed data ready (COUNTER_BDR_REG1's
 * dataready_pulsed), INT2_on_INT1, the user offsets, the filter chains,
 * the temperature sensor.
 * The counters count the accelerometer's samples.
 */
#include "accel_emu.h"

#define FUNC_CFG_ACCESS 0x01
#define SHUB_REG_ACCESS 0x40
#define FIFO_CTRL1 0x07
#define FIFO_CTRL2 0x08
#define FIFO_CTRL3 0x09
#define FIFO_CTRL4 0x0a
#define INT1_CTRL 0x0d
#define INT2_CTRL 0x0e
#define CTRL1_XL 0x10
#define CTRL2_G 0x11
#define CTRL3_C 0x12
#define CTRL5_C 0x14
#define WAKE_UP_SRC 0x1b
#define STATUS 0x1e
#define OUTX_L_G 0x22
#define OUTZ_H_G 0x27
#define OUTX_L_A 0x28
#define OUTZ_H_A 0x2d
#define FIFO_STATUS1 0x3a
#define FIFO_STATUS2 0x3b
#define TIMESTAMP0 0x40
#define TIMESTAMP2 0x42
#define TIMESTAMP3 0x43
#define TAP_CFG0 0x56
#define TAP_CFG2 0x58
#define CTRL8_XL 0x17
#define SLOPE_FDS 0x10
#define WAKE_UP_THS 0x5b
#define WAKE_UP_DUR 0x5c
#define MD1_CFG 0x5e
#define MD2_CFG 0x5f
#define FIFO_DATA_OUT_TAG 0x78
#define FIFO_DATA_OUT_Z_H 0x7e

#define WU_IA 0x08
#define INT_WU 0x20		/* MD1_CFG INT1_WU, MD2_CFG INT2_WU */
#define XLDA 0x01
#define GDA 0x02
#define IF_INC 0x04
#define SW_RESET 0x01
#define INT1_DRDY 0x03		/* INT1_DRDY_XL, INT1_DRDY_G */
#define INT1_FIFO_TH 0x08
#define TAG_GYRO 0x01
#define TAG_ACCEL 0x02
#define TAG_TIMESTAMP 0x04
#define TIMESTAMP_NS 25000
#define TIMESTAMP_RESET 0xaa
/* The middle of the datasheet's self-test limits: 50..1700 mg, 150..700 dps (at ±2000 dps). */
#define SELF_TEST_MDPS 425000

static const u8 lsm6dso_access[0x80] = {
	[0x01 ... 0x02] = RW, [0x04] = RW, [0x07 ... 0x0e] = RW, [0x0f] = RO,
	[0x10 ... 0x19] = RW, [0x1a ... 0x1e] = RO, [0x20 ... 0x2d] = RO,
	[0x35 ... 0x3b] = RO, [0x40 ... 0x43] = RO, [0x56 ... 0x5f] = RW,
	[0x62] = RW, [0x63] = RO, [0x73 ... 0x75] = RW, [0x78 ... 0x7e] = RO,
};
static const u8 lsm6dso_reset[0x80] = { [0x0f] = 0x6c, [CTRL3_C] = IF_INC };

/* By ODR_XL and ODR_G code: 12.5 Hz to 6.667 kHz, in mHz. */
static const u32 lsm6dso_odr_mhz[16] = {
	0, 12500, 26000, 52000, 104000, 208000, 416000, 833000, 1666000, 3332000, 6667000,
};
/* By FS_XL code (±2, ±16, ±4, ±8 g): µg per digit. */
static const u32 lsm6dso_ug_per_digit[4] = { 61, 488, 122, 244 };
/* By CTRL2_G bits 3:1 (FS_G, then FS_125, which wins): µdps per digit of
 * 250, 125, 500, 125, 1000, 125, 2000 and 125 dps. */
static const u32 lsm6dso_udps_per_digit[8] = { 8750, 4375, 17500, 4375, 35000, 4375, 70000, 4375 };

const struct emu_part emu_lsm6dso = {
	.name = "LSM6DSO",
	.access = lsm6dso_access, .reset = lsm6dso_reset,
	/* The first sample one period after turn-on; st_lsm6dsx's one-shot
	 * read waits one to two periods. */
	.turn_on_periods_high_resolution = 1, .turn_on_periods = 1, .boot_ms = 10,
	.boot = { CTRL3_C, 0x80 },
	.self_test = { CTRL5_C, 0x03 }, .self_test_code = 1,	/* ST_XL: 01 adds, 10 subtracts */
	.self_test_mg = { 875, 875, 875 },
	.drdy_int = { INT1_CTRL, INT1_FIFO_TH | INT1_DRDY },
	/* INT1_CTRL and INT2_CTRL, a signal a bit from bit 0, and the wake-up
	 * (MD1_CFG, MD2_CFG); CTRL3_C's H_LACTIVE (bit 5) and PP_OD (bit 4)
	 * for both pins. */
	.pins = {
		{
			{
				{ { INT1_CTRL, 0x01 }, 1, BIT(SIG_DRDY) },	  /* DRDY_XL */
				{ { INT1_CTRL, 0x02 }, 1, BIT(SIG_DRDY_G) },	  /* DRDY_G */
				{ { INT1_CTRL, 0x04 }, 1, BIT(SIG_UNMODELLED) }, /* BOOT */
				{ { INT1_CTRL, 0x08 }, 1, BIT(SIG_FIFO_WTM) },	  /* FIFO_TH */
				{ { INT1_CTRL, 0x10 }, 1, BIT(SIG_FIFO_OVR) },	  /* FIFO_OVR */
				{ { INT1_CTRL, 0x20 }, 1, BIT(SIG_FIFO_FULL) },  /* FIFO_FULL */
				{ { INT1_CTRL, 0x40 }, 1, BIT(SIG_UNMODELLED) }, /* CNT_BDR */
				{ { MD1_CFG, INT_WU }, 1, BIT(SIG_WAKE1) },	  /* INT1_WU */
			},
			{ CTRL3_C, 0x20 }, { CTRL3_C, 0x10 },
		},
		{
			{
				{ { INT2_CTRL, 0x01 }, 1, BIT(SIG_DRDY) },	  /* DRDY_XL */
				{ { INT2_CTRL, 0x02 }, 1, BIT(SIG_DRDY_G) },	  /* DRDY_G */
				{ { INT2_CTRL, 0x04 }, 1, BIT(SIG_UNMODELLED) }, /* DRDY_TEMP */
				{ { INT2_CTRL, 0x08 }, 1, BIT(SIG_FIFO_WTM) },	  /* FIFO_TH */
				{ { INT2_CTRL, 0x10 }, 1, BIT(SIG_FIFO_OVR) },	  /* FIFO_OVR */
				{ { INT2_CTRL, 0x20 }, 1, BIT(SIG_FIFO_FULL) },  /* FIFO_FULL */
				{ { INT2_CTRL, 0x40 }, 1, BIT(SIG_UNMODELLED) }, /* CNT_BDR */
				{ { MD2_CFG, INT_WU }, 1, BIT(SIG_WAKE1) },	  /* INT2_WU */
			},
			{ CTRL3_C, 0x20 }, { CTRL3_C, 0x10 },
		},
	},
	.six_axis = true,
};

static bool emu6_hub_page(const struct emu_chip *chip, u8 reg)
{
	return (chip->regs[FUNC_CFG_ACCESS] & SHUB_REG_ACCESS) && reg != FUNC_CFG_ACCESS;
}

static unsigned int emu6_watermark(const struct emu_chip *chip)
{
	return chip->regs[FIFO_CTRL1] | (chip->regs[FIFO_CTRL2] & 0x01) << 8;
}

static bool emu6_batched(const struct emu_chip *chip, u8 tag)
{
	u8 batch = chip->regs[FIFO_CTRL3];

	switch (tag) {
	case TAG_ACCEL: return chip->six.accel_on && (batch & 0x0f);
	case TAG_GYRO: return chip->six.gyro_on && (batch >> 4);
	default: return chip->regs[FIFO_CTRL4] >> 6;	/* DEC_TS_BATCH */
	}
}

void emu6_configure(struct emu_chip *chip)
{
	struct emu_six *six = &chip->six;
	u32 accel = lsm6dso_odr_mhz[chip->regs[CTRL1_XL] >> 4], gyro = lsm6dso_odr_mhz[chip->regs[CTRL2_G] >> 4];
	u8 mode = chip->regs[FIFO_CTRL4] & 0x07;
	bool was_fifo = chip->fifo_on;
	unsigned int i;

	six->accel_on = accel;
	six->gyro_on = gyro;
	if (!accel)
		six->have_last = false;	/* the slope filter starts again */
	chip->mhz = max(accel, gyro);
	chip->running = chip->mhz;
	chip->bits = 16;
	chip->ug_per_digit = lsm6dso_ug_per_digit[(chip->regs[CTRL1_XL] >> 2) & 3];
	/* Bypass (0) empties the FIFO; FIFO mode (1) stops when full; the
	 * others are taken as continuous, which overwrites the oldest. */
	chip->fifo_on = mode != 0;
	chip->fifo_stops_when_full = mode == 1;
	if (was_fifo && !chip->fifo_on) {
		for (i = 0; i < six->level; i++)
			if (six->words[(six->head + i) % EMU6_FIFO_WORDS][0] >> 3 == TAG_ACCEL)
				chip->counters[DROPPED]++;
		six->head = six->level = 0;
		six->overrun = false;
	}
}

/* The gyroscope's six output bytes for sample `index`: the motion's rate,
 * self-test added, at the range's digit, clipped; with the `count` motion
 * X carries the sample's number, as the accelerometer's does. */
static void emu6_gyro(const struct emu_chip *chip, u64 index, ktime_t instant, u8 out[EMU_SAMPLE_BYTES])
{
	s64 udps = lsm6dso_udps_per_digit[(chip->regs[CTRL2_G] >> 1) & 7];
	u8 test = (chip->regs[CTRL5_C] >> 2) & 3;
	s32 mdps[3];
	int axis;

	emu_rotation(chip, instant, mdps);
	for (axis = 0; axis < 3; axis++) {
		s64 rate = (s64)mdps[axis] + (test == 1 ? SELF_TEST_MDPS : test == 3 ? -SELF_TEST_MDPS : 0);
		s64 digits = div_s64(rate * 1000 + (rate < 0 ? -udps : udps) / 2, (s32)udps);
		u16 word = (u16)clamp_t(s64, digits, -32768, 32767);

		if (axis == 0 && chip->motion == COUNT)
			word = (u16)index;
		out[2 * axis] = word & 0xff;
		out[2 * axis + 1] = word >> 8;
	}
}

static void emu6_push(struct emu_chip *chip, u8 tag, u64 index, const u8 data[EMU_SAMPLE_BYTES])
{
	struct emu_six *six = &chip->six;
	u8 *word;

	if (six->level == EMU6_FIFO_WORDS) {
		six->overrun = true;
		if (chip->fifo_stops_when_full) {
			if (tag == TAG_ACCEL)
				chip->counters[DROPPED]++;
			return;
		}
		if (six->words[six->head][0] >> 3 == TAG_ACCEL)
			chip->counters[DROPPED]++;
		six->head = (six->head + 1) % EMU6_FIFO_WORDS;
		six->level--;
	}
	word = six->words[(six->head + six->level) % EMU6_FIFO_WORDS];
	word[0] = tag << 3 | (index & 3) << 1;	/* TAG_SENSOR, TAG_CNT */
	word[0] |= hweight8(word[0]) & 1;	/* TAG_PARITY: odd parity over the byte */
	memcpy(word + 1, data, EMU_SAMPLE_BYTES);
	six->level++;
}

static u32 emu6_timestamp(const struct emu_chip *chip, ktime_t instant)
{
	return (u32)div_u64(ktime_to_ns(ktime_sub(instant, chip->six.timestamp_zero)), TIMESTAMP_NS);
}

/*
 * The wake-up function on samples first..last (the last 256 at most): the
 * slope filter's output, (a[n] - a[n-1]) / 2 per axis, or with SLOPE_FDS
 * the first-order high-pass's at ODR / (4, 10, 20, 45, 100, 200, 400, 800
 * by HPCF_XL), against WK_THS in
 * steps of the range / 64 (/ 256 with WAKE_THS_W); WU_IA once an axis was
 * over it WAKE_DUR + 1 samples in a row, with TAP_CFG2's
 * INTERRUPTS_ENABLE. Latched (TAP_CFG0's LIR), WU_IA stays until
 * WAKE_UP_SRC is read; otherwise it follows the slope.
 */
/* The high-pass's coefficient by HPCF_XL: 1 / (divisor / 2π + 1), × 65536. */
static const u32 emu6_high_pass_alpha[8] = { 40050, 25290, 15668, 8030, 3874, 1996, 1013, 511 };

static void emu6_wake(struct emu_chip *chip, u64 first, u64 last)
{
	static const u32 range_mg[4] = { 2000, 16000, 4000, 8000 };	/* by FS_XL */
	struct emu_six *six = &chip->six;
	u8 duration = chip->regs[WAKE_UP_DUR];
	u32 threshold = (chip->regs[WAKE_UP_THS] & 0x3f) *
		range_mg[(chip->regs[CTRL1_XL] >> 2) & 3] / (duration & 0x10 ? 256 : 64);
	bool high_pass = chip->regs[TAP_CFG0] & SLOPE_FDS;
	u32 alpha = emu6_high_pass_alpha[chip->regs[CTRL8_XL] >> 5];
	s32 mg[3];
	u64 k;
	int axis;

	if (!six->accel_on)
		return;
	if (last - first > 255)
		first = last - 255;
	for (k = first; k <= last; k++) {
		u8 events = 0;
		bool met;

		emu_sensed(chip, ktime_add_ns(chip->start, k * chip->period_ns), mg);
		for (axis = 0; six->have_last && axis < 3; axis++) {
			s64 filtered = (s64)mg[axis] * 65536 - six->hp_reference[axis];
			u32 over = high_pass ? (u32)(abs(filtered) >> 16) : (u32)abs(mg[axis] - six->last_mg[axis]) / 2;

			six->hp_reference[axis] += (filtered * alpha) >> 16;
			if (over > threshold)
				events |= 4 >> axis;	/* X_WU, Y_WU, Z_WU */
		}
		for (axis = 0; !six->have_last && axis < 3; axis++)
			six->hp_reference[axis] = (s64)mg[axis] * 65536;	/* starts settled */
		memcpy(six->last_mg, mg, sizeof(mg));
		six->have_last = true;
		met = (chip->regs[TAP_CFG2] & 0x80) && events;
		six->wake_count = met ? min(six->wake_count + 1, 255u) : 0;
		if (met && six->wake_count > ((duration >> 5) & 3))
			six->wake_source = WU_IA | events;
		else if (!(chip->regs[TAP_CFG0] & 0x01))
			six->wake_source = 0;
	}
}

/*
 * Makes samples first..last: the output registers hold the last (an
 * unread one before it is lost); the FIFO, when on, takes each one's
 * words, timestamp first, as many as it can still hold.
 */
void emu6_produce(struct emu_chip *chip, u64 first, u64 last)
{
	struct emu_six *six = &chip->six;
	u8 *status = &chip->regs[STATUS], accel[EMU_SAMPLE_BYTES], gyro[EMU_SAMPLE_BYTES];
	unsigned int per = emu6_batched(chip, TAG_TIMESTAMP) + emu6_batched(chip, TAG_GYRO) + emu6_batched(chip, TAG_ACCEL);
	bool fifo_counts = chip->fifo_on && emu6_batched(chip, TAG_ACCEL);
	u64 k, made = last - first + 1, kept = per ? EMU6_FIFO_WORDS / per : 0;

	if (chip->fifo_on && per) {
		if (made > kept) {
			if (fifo_counts)
				chip->counters[DROPPED] += made - kept;
			first = last + 1 - kept;
		}
		for (k = first; k <= last; k++) {
			ktime_t instant = ktime_add_ns(chip->start, k * chip->period_ns);
			u8 stamp[EMU_SAMPLE_BYTES] = { 0 };
			u32 ticks = emu6_timestamp(chip, instant);

			if (emu6_batched(chip, TAG_TIMESTAMP)) {
				stamp[0] = ticks & 0xff;
				stamp[1] = (ticks >> 8) & 0xff;
				stamp[2] = (ticks >> 16) & 0xff;
				stamp[3] = ticks >> 24;
				emu6_push(chip, TAG_TIMESTAMP, k, stamp);
			}
			if (emu6_batched(chip, TAG_GYRO)) {
				emu6_gyro(chip, k, instant, gyro);
				emu6_push(chip, TAG_GYRO, k, gyro);
			}
			if (emu6_batched(chip, TAG_ACCEL)) {
				emu_convert(chip, k, instant, accel);
				emu6_push(chip, TAG_ACCEL, k, accel);
			}
		}
	}
	if (six->accel_on && !fifo_counts)
		chip->counters[DROPPED] += made - 1 + (*status & XLDA ? 1 : 0);
	if (six->gyro_on) {
		emu6_gyro(chip, last, ktime_add_ns(chip->start, last * chip->period_ns), &chip->regs[OUTX_L_G]);
		*status |= GDA;
	}
	if (six->accel_on) {
		emu_convert(chip, last, ktime_add_ns(chip->start, last * chip->period_ns), &chip->regs[OUTX_L_A]);
		*status |= XLDA;
	}
	emu6_wake(chip, first, last);
}

/* A FIFO output byte: the oldest word's; its last byte pops it. */
static u8 emu6_read_fifo(struct emu_chip *chip, u8 reg)
{
	struct emu_six *six = &chip->six;
	u8 *word = six->words[six->head];

	if (six->level == 0) {
		if (reg == FIFO_DATA_OUT_TAG)
			chip->counters[EMPTY_READS]++;
		return 0;
	}
	if (reg == FIFO_DATA_OUT_Z_H) {
		if (word[0] >> 3 == TAG_ACCEL)
			chip->counters[DELIVERED]++;
		six->head = (six->head + 1) % EMU6_FIFO_WORDS;
		six->level--;
	}
	return word[reg - FIFO_DATA_OUT_TAG];
}

u8 emu6_read_reg(struct emu_chip *chip, u8 reg, ktime_t now)
{
	struct emu_six *six = &chip->six;
	u8 *status = &chip->regs[STATUS], value;

	if (emu6_hub_page(chip, reg))
		return six->hub_page[reg];
	switch (reg) {
	case WAKE_UP_SRC:
		value = six->wake_source;
		if (chip->regs[TAP_CFG0] & 0x01)
			six->wake_source = 0;	/* a latched wake-up is released */
		return value;
	case STATUS:
		if (!(*status & (XLDA | GDA)))
			chip->counters[EMPTY_READS]++;
		return *status;
	case OUTZ_H_G:
		*status &= ~GDA;
		return chip->regs[reg];
	case OUTZ_H_A:
		if ((*status & XLDA) && !(chip->fifo_on && emu6_batched(chip, TAG_ACCEL)))
			chip->counters[DELIVERED]++;
		*status &= ~XLDA;
		return chip->regs[reg];
	case FIFO_STATUS1:
		return six->level & 0xff;
	case FIFO_STATUS2:
		/* DIFF_FIFO's high bits, FIFO_WTM_IA, FIFO_OVR_IA, FIFO_FULL_IA,
		 * and FIFO_OVR_LATCHED, which this read clears */
		value = (six->level >> 8) & 0x03;
		if (emu6_watermark(chip) && six->level >= emu6_watermark(chip))
			value |= 0x80;
		if (six->level == EMU6_FIFO_WORDS)
			value |= (six->overrun ? 0x40 : 0) | 0x20;
		if (six->overrun)
			value |= 0x08;
		six->overrun = false;
		return value;
	case TIMESTAMP0 ... TIMESTAMP3:
		return (u8)(emu6_timestamp(chip, now) >> (8 * (reg - TIMESTAMP0)));
	case FIFO_DATA_OUT_TAG ... FIFO_DATA_OUT_Z_H:
		return emu6_read_fifo(chip, reg);
	}
	switch (chip->part->access[reg]) {
	case RO:
	case RW:
		return chip->regs[reg];
	default:
		return 0;
	}
}

/* Stores a write; says whether the control registers must be read again. */
bool emu6_write_reg(struct emu_chip *chip, u8 reg, u8 value, ktime_t now)
{
	struct emu_six *six = &chip->six;

	if (emu6_hub_page(chip, reg)) {
		six->hub_page[reg] = value;
		return false;
	}
	if (reg == TIMESTAMP2 && value == TIMESTAMP_RESET) {
		six->timestamp_zero = now;
		return false;
	}
	if (chip->part->access[reg] != RW)
		return false;
	if (reg == CTRL3_C && (value & SW_RESET)) {
		/* Every register back to its reset value (SW_RESET clears itself);
		 * the configuration then stops the clock and empties the FIFO. */
		memcpy(chip->regs, chip->part->reset, sizeof(chip->regs));
		memset(six->hub_page, 0, sizeof(six->hub_page));
		six->wake_source = 0;
		six->wake_count = 0;
		return true;
	}
	chip->regs[reg] = value;
	return true;
}

bool emu6_auto_increment(const struct emu_chip *chip)
{
	return chip->regs[CTRL3_C] & IF_INC;
}

u8 emu6_step(const struct emu_chip *chip, u8 reg)
{
	if (reg == FIFO_DATA_OUT_Z_H && !emu6_hub_page(chip, reg))
		return FIFO_DATA_OUT_TAG;
	return (reg + 1) & 0x7f;
}

/* INT1 for a tick that made samples: data-ready, or the FIFO at its watermark. */
bool emu6_interrupt(const struct emu_chip *chip)
{
	u8 routed = chip->regs[INT1_CTRL];
	unsigned int watermark = emu6_watermark(chip);

	if (routed & INT1_DRDY)
		return true;
	return (routed & INT1_FIFO_TH) && chip->fifo_on && watermark && chip->six.level >= watermark;
}

unsigned int emu6_fifo_level(const struct emu_chip *chip)
{
	return chip->six.level;
}

/*
 * The signals the pins can carry: XLDA and GDA (each until its output is
 * read), and the FIFO's as FIFO_STATUS2 shows them: FIFO_WTM_IA (at or
 * above the watermark), FIFO_OVR_IA (full, a word lost) and FIFO_FULL_IA.
 */
u16 emu6_signals(const struct emu_chip *chip)
{
	const struct emu_six *six = &chip->six;
	unsigned int watermark = emu6_watermark(chip);
	u16 signals = 0;

	if (chip->regs[STATUS] & XLDA)
		signals |= BIT(SIG_DRDY);
	if (chip->regs[STATUS] & GDA)
		signals |= BIT(SIG_DRDY_G);
	if (six->wake_source & WU_IA)
		signals |= BIT(SIG_WAKE1);
	if (watermark && six->level >= watermark)
		signals |= BIT(SIG_FIFO_WTM);
	if (six->level == EMU6_FIFO_WORDS) {
		signals |= BIT(SIG_FIFO_FULL);
		if (six->overrun)
			signals |= BIT(SIG_FIFO_OVR);
	}
	return signals;
}
