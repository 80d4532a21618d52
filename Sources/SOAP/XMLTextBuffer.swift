/// A growable byte buffer whose reset is setting `count` to zero: a
/// record's text and attribute values are appended to one and emptied for
/// every record, where an array's bookkeeping shows.
///
/// The reader appends character data to ``XMLTextInterest/buffer`` itself
/// while a handler collects text. Inlinable, since handlers in other modules
/// append and read on every record.
///
/// Used by one parse on one thread, like the reader and its handlers.
public final class XMLTextBuffer {
    @exclusivity(unchecked) @usableFromInline var storage = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    @exclusivity(unchecked) @usableFromInline var capacity = 256
    @exclusivity(unchecked) @usableFromInline var used = 0

    /// How many bytes it holds; set lower to drop the rest. Stored apart,
    /// unchecked: a stored property read from another module is checked for
    /// exclusivity at run time, these accessors (inlined there) are not.
    @inlinable public var count: Int {
        get { used }
        set { used = newValue }
    }

    public init() {}

    /// The first byte; valid until the next append.
    @inlinable public var base: UnsafePointer<UInt8> { UnsafePointer(storage) }

    @inlinable @inline(__always)  // once per piece of text a record captures
    public func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > capacity { grow(toHold: count + bytes.count) }
        XMLTextBuffer.copy(source, to: storage + count, count: bytes.count)
        count += bytes.count
    }

    /// Copies a few bytes in overlapping words, with no call: a field's
    /// text is mostly 4 to 32 bytes, where memmove's call and checks cost
    /// more than the copy. Every load and store lies within the `count`
    /// bytes at `source` and at `target`, and every load comes before the
    /// first store.
    @inlinable @inline(__always)
    static func copy(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(target)
        switch count {
        case 4..<8:
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            to.storeBytes(of: head, as: UInt32.self)
            to.storeBytes(of: tail, toByteOffset: count - 4, as: UInt32.self)
        case 8...16:
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            to.storeBytes(of: head, as: UInt64.self)
            to.storeBytes(of: tail, toByteOffset: count - 8, as: UInt64.self)
        case 17...32:
            let words = (
                from.loadUnaligned(as: UInt64.self), from.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                from.loadUnaligned(fromByteOffset: count - 16, as: UInt64.self),
                from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            )
            to.storeBytes(of: words.0, as: UInt64.self)
            to.storeBytes(of: words.1, toByteOffset: 8, as: UInt64.self)
            to.storeBytes(of: words.2, toByteOffset: count - 16, as: UInt64.self)
            to.storeBytes(of: words.3, toByteOffset: count - 8, as: UInt64.self)
        default:
            target.update(from: source, count: count)
        }
    }

    @usableFromInline func grow(toHold needed: Int) {
        var grown = capacity * 2
        while grown < needed { grown *= 2 }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.update(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity = grown
    }

    /// The bytes from `start` to the end, valid until the next append.
    @inlinable public func bytes(from start: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: storage + start, count: count - start)
    }

    deinit { storage.deallocate() }
}
