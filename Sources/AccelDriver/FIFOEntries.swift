// SPDX-License-Identifier: Apache-2.0

/// The chip model's FIFO storage: a ring of fixed-size entries (one
/// sample's six output bytes, a tagged word's seven, a pattern word's
/// two), so that queueing a sample and reading a burst allocate nothing;
/// replay at kHz queues and reads millions of them.
struct FIFOEntries {
    let entryBytes: Int
    let capacity: Int
    private var storage: [UInt8]
    /// The oldest entry's slot.
    private var head = 0
    private(set) var count = 0

    init(entryBytes: Int, capacity: Int) {
        self.entryBytes = entryBytes
        self.capacity = capacity
        storage = [UInt8](repeating: 0, count: entryBytes * capacity)
    }

    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == capacity }

    mutating func removeAll() {
        head = 0
        count = 0
    }

    /// Byte `index` of the oldest entry (there must be one).
    func oldest(_ index: Int) -> UInt8 { storage[head * entryBytes + index] }

    /// Drops the oldest entry; returns its first byte (a tagged word's tag).
    @discardableResult
    mutating func removeOldest() -> UInt8 {
        let first = storage[head * entryBytes]
        head = head + 1 == capacity ? 0 : head + 1
        count -= 1
        return first
    }

    /// Appends an entry of `tag` (if any) then three words, little-endian;
    /// the caller makes room first.
    mutating func append(tag: UInt8? = nil, _ words: (UInt16, UInt16, UInt16)) {
        var offset = slotAfterNewest
        if let tag { storage[offset] = tag; offset += 1 }
        put(words.0, at: offset); put(words.1, at: offset + 2); put(words.2, at: offset + 4)
        count += 1
    }

    /// Appends one word as an entry (a pattern FIFO's).
    mutating func append(word: UInt16) {
        put(word, at: slotAfterNewest)
        count += 1
    }

    private var slotAfterNewest: Int { ((head + count) % capacity) * entryBytes }

    private mutating func put(_ word: UInt16, at offset: Int) {
        storage[offset] = UInt8(word & 0xFF)
        storage[offset + 1] = UInt8(word >> 8)
    }

    /// Moves the oldest `buffer.count / entryBytes` entries into `buffer`,
    /// as a burst that wraps the FIFO's data registers reads them.
    mutating func move(into buffer: UnsafeMutableRawBufferPointer) {
        storage.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: buffer.count, by: entryBytes) {
                let from = head * entryBytes
                buffer.baseAddress!.advanced(by: start).copyMemory(from: bytes.baseAddress!.advanced(by: from), byteCount: entryBytes)
                head = head + 1 == capacity ? 0 : head + 1
            }
        }
        count -= buffer.count / entryBytes
    }
}
