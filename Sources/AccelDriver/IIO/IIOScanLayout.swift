// SPDX-License-Identifier: Apache-2.0
/// Where each channel sits in one scan of an IIO buffer, from the
/// `scan_elements/*_type` and `*_index` files, laid out as the kernel's
/// iio_compute_scan_bytes does: channels by index, each aligned to its own
/// size, the whole scan padded to its largest element.
public struct IIOScanLayout: Sendable, Equatable {
    /// One channel's format, parsed from a type such as `le:s12/16>>4`.
    public struct Element: Sendable, Equatable {
        public var name: String
        public var index: Int
        public var bigEndian: Bool
        public var signed: Bool
        public var bits: Int
        public var storageBits: Int
        public var shift: Int
        /// Byte offset in the scan.
        public var offset = 0

        /// Parses `[be|le]:[s|u]BITS/STORAGE[Xrepeat][>>SHIFT]`; nil when
        /// the text is not that (repeated channels are not accelerometer axes).
        public init?(name: String, index: Int, type text: String) {
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0] == "le" || parts[0] == "be" else { return nil }
            var rest = Substring(parts[1])
            guard let sign = rest.first, sign == "s" || sign == "u" else { return nil }
            rest = rest.dropFirst()
            let shiftSplit = rest.split(separator: ">", omittingEmptySubsequences: true)
            let sizes = shiftSplit[0].split(separator: "/")
            guard sizes.count == 2, let bits = Int(sizes[0]), let storage = Int(sizes[1]),
                  [8, 16, 32, 64].contains(storage), bits >= 1, bits <= storage else { return nil }
            let shift = shiftSplit.count > 1 ? Int(shiftSplit[1]) : 0
            guard let shift, shift >= 0, shift + bits <= storage else { return nil }
            self.name = name
            self.index = index
            bigEndian = parts[0] == "be"
            signed = sign == "s"
            self.bits = bits
            storageBits = storage
            self.shift = shift
        }

        var storageBytes: Int { storageBits / 8 }

        /// The channel's value in `scan`.
        public func value(in scan: UnsafeRawBufferPointer) -> Int64 {
            var raw: UInt64 = 0
            for i in 0..<storageBytes {
                let byte = UInt64(scan[offset + (bigEndian ? i : storageBytes - 1 - i)])
                raw = raw << 8 | byte
            }
            raw >>= UInt64(shift)
            if bits < 64 { raw &= (1 << UInt64(bits)) - 1 }
            guard signed, bits < 64, raw & (1 << UInt64(bits - 1)) != 0 else { return Int64(bitPattern: raw) }
            return Int64(bitPattern: raw | ~((1 << UInt64(bits)) - 1))
        }
    }

    /// The enabled channels in scan order, with their offsets.
    public let elements: [Element]
    /// Bytes per scan: reads of the device node come in multiples of it.
    public let scanBytes: Int

    public init(_ enabled: [Element]) {
        var placed: [Element] = []
        var bytes = 0, largest = 1
        for var element in enabled.sorted(by: { $0.index < $1.index }) {
            let size = element.storageBytes
            bytes = (bytes + size - 1) / size * size
            element.offset = bytes
            bytes += size
            largest = max(largest, size)
            placed.append(element)
        }
        elements = placed
        scanBytes = (bytes + largest - 1) / largest * largest
    }

    public func element(_ name: String) -> Element? { elements.first { $0.name == name } }
}
