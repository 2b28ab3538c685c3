// SPDX-License-Identifier: Apache-2.0

/// A message in OMG CDR, little-endian, as ROS 2 puts it on the wire and in
/// its bags: the 4-byte encapsulation header (CDR_LE), then each field at
/// its natural alignment counted from the end of that header. This is
/// XCDR1 ("plain" CDR) as rmw_cyclonedds_cpp and rosbag2 write it for ROS 2
/// messages, which are all final types: no member headers, no DHEADER.
public struct CDRWriter {
    public private(set) var bytes: [UInt8] = [0x00, 0x01, 0x00, 0x00]
    /// Alignment counts from here: the header is not part of the stream.
    private let origin = 4

    public init() {}

    private mutating func align(_ size: Int) {
        let misplaced = (bytes.count - origin) % size
        if misplaced != 0 { bytes.append(contentsOf: repeatElement(0, count: size - misplaced)) }
    }

    private mutating func append<T: FixedWidthInteger>(_ value: T) {
        align(MemoryLayout<T>.size)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func write(_ value: UInt8) { append(value) }
    public mutating func write(_ value: Int32) { append(value) }
    public mutating func write(_ value: UInt32) { append(value) }
    public mutating func write(_ value: Double) { append(value.bitPattern) }

    /// A string: its length with the terminating NUL, the UTF-8, the NUL.
    public mutating func write(_ value: String) {
        let utf8 = Array(value.utf8)
        write(UInt32(utf8.count + 1))
        bytes.append(contentsOf: utf8)
        bytes.append(0)
    }

    /// A fixed-size array (`float64[9]`): the elements only, no count.
    public mutating func write(fixed values: [Double]) {
        for value in values { write(value) }
    }

    /// A sequence (`T[]`): its count, then each element as `element` writes it.
    public mutating func write<Element>(sequence: [Element], _ element: (inout CDRWriter, Element) -> Void) {
        write(UInt32(sequence.count))
        for item in sequence { element(&self, item) }
    }
}
