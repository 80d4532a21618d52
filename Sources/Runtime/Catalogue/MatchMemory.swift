import Locking
import Matching

/// The last match of each city that a long-lived process made (a worker's match jobs), kept so that the
/// city's next match finds and scores again only the records that changed and their neighbours
/// (``/Matching/PreparedRecords/rematch(since:decisions:)``), with a full match's result.
///
/// The result of matching again depends on the previous run's records and result alone, never on what the
/// store holds, so a kept run stays usable whoever matched the city since. It is kept in memory only: a
/// run's prepared records, the records as given and its scored pairs (about 2 KB a record) are most of a match's
/// memory. So the memory holds at most
/// ``recordLimit`` records, forgetting the cities used longest ago, and keeps no city smaller than
/// ``smallestCity``: matching again costs a few passes over the city's indexes, more than a small city's full match.
/// A process that matches each city once (`hotels match`, `hotels fetch`) has none.
public final class MatchMemory: Sendable {
    public let recordLimit: Int
    public let smallestCity: Int
    /// Below this many records, a city's full match costs less than matching it again (BENCHMARKS.md, session 38).
    public static let defaultSmallestCity = 50_000
    private let state = PosixMutex(State())

    private struct State {
        var runs: [String: (previous: PreviousMatch, lastUse: UInt64)] = [:]
        var uses: UInt64 = 0
    }

    /// - Parameters:
    ///   - recordLimit: the records of every city kept, together.
    ///   - smallestCity: the fewest records a city kept has.
    public init(recordLimit: Int, smallestCity: Int = MatchMemory.defaultSmallestCity) {
        self.recordLimit = recordLimit
        self.smallestCity = smallestCity
    }

    /// The last run kept of `scope`, if any.
    public func previous(of scope: String) -> PreviousMatch? {
        state.withLock { state in
            state.uses += 1
            state.runs[scope]?.lastUse = state.uses
            return state.runs[scope]?.previous
        }
    }

    /// Keeps `run` as `scope`'s last, in place of any before it, when the city is large enough and fits.
    public func keep(_ run: PreviousMatch, of scope: String) {
        state.withLock { state in
            state.runs[scope] = nil
            let size = run.prepared.records.count
            guard size >= smallestCity, size <= recordLimit else { return }
            var kept = state.runs.values.reduce(0) { $0 + $1.previous.prepared.records.count }
            while kept + size > recordLimit, let oldest = state.runs.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                kept -= oldest.value.previous.prepared.records.count
                state.runs[oldest.key] = nil
            }
            state.uses += 1
            state.runs[scope] = (run, state.uses)
        }
    }

    /// The cities kept, and their records together.
    public var kept: (cities: Int, records: Int) {
        state.withLock { state in (state.runs.count, state.runs.values.reduce(0) { $0 + $1.previous.prepared.records.count }) }
    }
}
