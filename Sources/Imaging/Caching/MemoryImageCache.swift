import Locking

/// Decoded images in memory, least recently used evicted first once the total
/// cost (bytes of pixels) passes the limit. Safe from any thread.
public final class MemoryImageCache: Sendable {
    private struct Entry {
        var image: RGBAImage
        var previous: String?
        var next: String?
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Most recently used.
        var head: String?
        /// Least recently used: evicted first.
        var tail: String?
        var cost = 0
    }

    public let costLimit: Int
    private let state = PosixMutex(State())

    public init(costLimit: Int = 64 << 20) {
        self.costLimit = costLimit
    }

    public func image(for key: String) -> RGBAImage? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            Self.unlink(key, in: &state)
            Self.pushFront(key, image: entry.image, in: &state)
            return entry.image
        }
    }

    public func store(_ image: RGBAImage, for key: String) {
        state.withLock { state in
            if state.entries[key] != nil { Self.remove(key, in: &state) }
            guard image.pixels.count <= costLimit else { return }
            Self.pushFront(key, image: image, in: &state)
            state.cost += image.pixels.count
            while state.cost > costLimit, let oldest = state.tail {
                Self.remove(oldest, in: &state)
            }
        }
    }

    public func removeAll() {
        state.withLock { $0 = State() }
    }

    /// Bytes of pixels held, and how many images.
    public var usage: (cost: Int, count: Int) {
        state.withLock { ($0.cost, $0.entries.count) }
    }

    private static func pushFront(_ key: String, image: RGBAImage, in state: inout State) {
        state.entries[key] = Entry(image: image, previous: nil, next: state.head)
        if let head = state.head { state.entries[head]?.previous = key }
        state.head = key
        if state.tail == nil { state.tail = key }
    }

    private static func remove(_ key: String, in state: inout State) {
        guard let entry = state.entries[key] else { return }
        unlink(key, in: &state)
        state.entries[key] = nil
        state.cost -= entry.image.pixels.count
    }

    private static func unlink(_ key: String, in state: inout State) {
        guard let entry = state.entries[key] else { return }
        if let previous = entry.previous { state.entries[previous]?.next = entry.next } else { state.head = entry.next }
        if let next = entry.next { state.entries[next]?.previous = entry.previous } else { state.tail = entry.previous }
        state.entries[key]?.previous = nil
        state.entries[key]?.next = nil
    }
}
