// SPDX-License-Identifier: Apache-2.0
extension ChipProfile {
    /// A hardware FIFO: samples queue in the chip and are read many at a
    /// time, in one transfer from `dataRegister`, which the auto-increment
    /// wraps back to itself after one entry.
    public struct FIFO: Sendable, Equatable {
        public enum Layout: Sendable, Equatable {
            /// One entry per sample, the six output bytes, read from the
            /// output registers (LIS3DH, LIS2DH12: the auto-increment wraps
            /// OUT_Z_H to OUT_X_L while the FIFO is on).
            case outputRegisters
            /// 7-byte words: a tag (TAG_SENSOR in bits 7:3), then six
            /// output bytes; one word per sensor per sample, the gyroscope's
            /// first (LSM6DSO: FIFO_DATA_OUT_TAG, wrapping 0x7E to 0x78).
            case tagged(gyroscope: UInt8, accelerometer: UInt8, ignored: [UInt8])
        }

        public let layout: Layout
        /// Entries it holds (samples, or tagged words).
        public let depth: Int
        /// Turns the FIFO on (FIFO_EN); nil where the mode alone does.
        public let enable: Field?
        /// Set to the output rate's code while streaming and to 0 in
        /// bypass (the LSM6DSO's BDR_XL and BDR_GY: what gets batched).
        public let batchRateFields: [Field]
        /// FIFO mode: bypass, or stream (the oldest entry is overwritten when full).
        public let modeField: Field
        public let bypassCode: UInt8
        public let streamCode: UInt8
        /// Watermark level, in entries.
        public let watermarkField: Field
        /// The status: `statusLength` bytes from `statusRegister`, read
        /// as one little-endian number, with these flags and level.
        public let statusRegister: UInt8
        public let statusLength: Int
        public let watermarkFlag: UInt16
        /// Entries were overwritten (any of these bits).
        public let overrunFlag: UInt16
        /// 0 where the status has no empty flag.
        public let emptyFlag: UInt16
        public let levelMask: UInt16
        /// The level counts to depth − 1; a full FIFO shows the overrun
        /// flag instead (the LIS3DH's FSS).
        public let overrunMeansFull: Bool
        public let dataRegister: UInt8

        public var entryBytes: Int { layout == .outputRegisters ? ChipProfile.sampleBytes : ChipProfile.sampleBytes + 1 }
        /// Entries one sample takes: the tagged FIFO batches both sensors.
        public var entriesPerSample: Int { layout == .outputRegisters ? 1 : 2 }
        /// Samples it holds.
        public var sampleDepth: Int { depth / entriesPerSample }
        /// The largest watermark in samples: one short of full, and what
        /// the field can say (the LSM6DSO's WTM8 is left clear: 127).
        public var watermarkLimit: Int {
            min(sampleDepth - 1, Int(watermarkField.value(in: 0xFF)) / entriesPerSample)
        }
    }
}
