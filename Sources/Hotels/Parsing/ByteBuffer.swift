/// A growable byte buffer whose reset is setting `count` to zero: the
/// buffers are appended to and emptied for every record, where an array's
/// bookkeeping shows.
///
/// Used by one parse on one thread, like the extractor that owns it.
final class ByteBuffer {
    private var storage = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    private var capacity = 256
    @exclusivity(unchecked) var count = 0

    /// The first byte; valid until the next append.
    var base: UnsafePointer<UInt8> { UnsafePointer(storage) }

    @inline(__always) // once per piece of text a record captures
    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > capacity { grow(toHold: count + bytes.count) }
        (storage + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    private func grow(toHold needed: Int) {
        var grown = capacity * 2
        while grown < needed { grown *= 2 }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.update(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity = grown
    }

    /// The bytes from `start` to the end, valid until the next append.
    func bytes(from start: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: storage + start, count: count - start)
    }

    deinit { storage.deallocate() }
}
