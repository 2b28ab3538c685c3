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
            /// Untagged 16-bit words in a fixed pattern: the gyroscope's X,
            /// Y, Z, then the accelerometer's (LSM6DSL, LSM6DS3:
            /// FIFO_DATA_OUT_L/H, wrapping 0x3F to 0x3E). The status's
            /// `patternMask` bits say which word of the pattern comes next.
            case pattern(patternMask: UInt32)
        }

        public let layout: Layout
        /// Entries it holds (samples, tagged words, or 16-bit words).
        public let depth: Int
        /// Turns the FIFO on (FIFO_EN); nil where the mode alone does.
        public let enable: Field?
        /// Set to the output rate's code while streaming and to 0 in
        /// bypass (the LSM6DSO's BDR_XL and BDR_GY, the LSM6DSL's ODR_FIFO).
        public let batchRateFields: [Field]
        /// Set while streaming, 0 in bypass (the LSM6DSL's decimation
        /// fields: 1 is every sample).
        public let streamSettings: [Setting]
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
        public let watermarkFlag: UInt32
        /// Entries were overwritten (any of these bits).
        public let overrunFlag: UInt32
        /// 0 where the status has no empty flag.
        public let emptyFlag: UInt32
        public let levelMask: UInt32
        /// A full FIFO's level reads short (the LIS3DH's FSS stops at 31,
        /// the LSM6DSL's DIFF_FIFO wraps to 0) with the overrun flag set:
        /// then it holds `depth`.
        public let overrunMeansFull: Bool
        public let dataRegister: UInt8

        public var entryBytes: Int {
            switch layout {
            case .outputRegisters: ChipProfile.sampleBytes
            case .tagged: ChipProfile.sampleBytes + 1
            case .pattern: 2
            }
        }
        /// Entries one sample takes: both sensors, as two tagged words or six 16-bit ones.
        public var entriesPerSample: Int {
            switch layout {
            case .outputRegisters: 1
            case .tagged: 2
            case .pattern: 6
            }
        }
        /// Samples it holds.
        public var sampleDepth: Int { depth / entriesPerSample }
        /// The largest watermark in samples: one short of full, and what
        /// the field can say (the LSM6DSO's WTM8 and the LSM6DSL's FTH
        /// high bits stay clear: 127 and 42).
        public var watermarkLimit: Int {
            min(sampleDepth - 1, Int(watermarkField.value(in: 0xFF)) / entriesPerSample)
        }
    }
}
