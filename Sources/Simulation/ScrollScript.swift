import Fetching
import Foundation

/// One step of a scroll script: what the user's finger did, and when.
public struct ScrollEvent: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case dragBegin, scroll, dragEnd, decelerateEnd, end
    }

    /// Milliseconds after the first page was shown.
    public var at: Double
    public var event: Kind
    /// The first visible row, for `scroll`; may be fractional.
    public var top: Double?
    /// For `dragEnd`: whether the table goes on moving.
    public var decelerate: Bool?

    public init(at: Double, event: Kind, top: Double? = nil, decelerate: Bool? = nil) {
        self.at = at
        self.event = event
        self.top = top
        self.decelerate = decelerate
    }
}

/// A mistake in a scroll script, with its line.
public struct ScrollScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var reason: String

    public var description: String { "line \(line): \(reason)" }
}

/// A scroll session: JSON Lines of ``ScrollEvent``s, in time order.
public struct ScrollScript: Sendable, Equatable {
    public var events: [ScrollEvent]

    public init(events: [ScrollEvent]) {
        self.events = events
    }

    /// The script in the file at `path`: ``UnreadableFile`` (exit 66) when it
    /// cannot be read, ``ScrollScriptError`` (65) when it is not a script.
    public init(contentsOf path: String) throws {
        try self.init(jsonLines: UnreadableFile.contents(of: path))
    }

    /// Parses and checks a script: times never go back, `scroll` has a
    /// `top`, `dragEnd` says whether it decelerates, drags pair up, and
    /// nothing follows `end`.
    public init(jsonLines data: Data) throws(ScrollScriptError) {
        var events: [ScrollEvent] = []
        var dragging = false
        var decelerating = false
        for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            guard !line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) else { continue }
            let event: ScrollEvent
            do {
                event = try JSONDecoder().decode(ScrollEvent.self, from: Data(line))
            } catch {
                throw ScrollScriptError(line: number, reason: "not a scroll event: \(Self.describe(error))")
            }
            func fail(_ reason: String) -> ScrollScriptError { ScrollScriptError(line: number, reason: reason) }
            guard event.at.isFinite, event.at >= 0 else { throw fail("“at” must be a time in milliseconds, 0 or more") }
            if let previous = events.last {
                guard event.at >= previous.at else { throw fail("“at” goes back in time (\(event.at) after \(previous.at))") }
                guard previous.event != .end else { throw fail("nothing may follow “end”") }
            }
            switch event.event {
            case .scroll:
                guard let top = event.top, top.isFinite, top >= 0 else { throw fail("“scroll” needs a “top” row, 0 or more") }
            case .dragBegin:
                guard !dragging else { throw fail("“dragBegin” while already dragging") }
                dragging = true
                decelerating = false
            case .dragEnd:
                guard dragging else { throw fail("“dragEnd” without “dragBegin”") }
                guard let decelerate = event.decelerate else { throw fail("“dragEnd” needs “decelerate”: true or false") }
                dragging = false
                decelerating = decelerate
            case .decelerateEnd:
                guard decelerating else { throw fail("“decelerateEnd” without a decelerating “dragEnd”") }
                decelerating = false
            case .end:
                break
            }
            events.append(event)
        }
        guard !events.isEmpty else { throw ScrollScriptError(line: 1, reason: "the script has no events") }
        if events.last?.event != .end {
            events.append(ScrollEvent(at: events.last?.at ?? 0, event: .end))
        }
        self.events = events
    }

    public func jsonLines() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return events.map { String(decoding: (try? encoder.encode($0)) ?? Data(), as: UTF8.self) + "\n" }.joined()
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing “\(key.stringValue)”"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "bad “\(context.codingPath.map(\.stringValue).joined(separator: "."))”"
        case DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty ? "invalid JSON" : "bad “\(context.codingPath.map(\.stringValue).joined(separator: "."))”"
        default: String(describing: error)
        }
    }
}
