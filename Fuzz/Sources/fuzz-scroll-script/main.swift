import Foundation
import FuzzCheck

// ScrollScript.swift here is a link to Sources/Simulation/ScrollScript.swift:
// Simulation is linked by the CLI alone, not a product this package could
// depend on, and the parser needs nothing but Foundation.

/// A script either parses into events that keep their rules (time never goes
/// back, drags pair up, it ends with `end`) and survive a round trip through
/// their JSON Lines, or is refused with a ScrollScriptError naming its line.
func fuzzScrollScript(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = Data(input(start, count))
    let script: ScrollScript
    do {
        script = try ScrollScript(jsonLines: data)
    } catch {
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
        invariant(
            (1...max(1, lines)).contains(error.line) && !error.reason.isEmpty,
            "a refusal without a line of the script or a reason: \(error)")
        return 0
    }
    invariant(script.events.last?.event == .end, "a script that does not end with end")
    invariant(zip(script.events, script.events.dropFirst()).allSatisfy { $0.at <= $1.at }, "time goes back")
    invariant(script.events.allSatisfy { $0.at.isFinite && ($0.top?.isFinite ?? true) }, "a time or row that is not finite")
    var dragging = false
    for event in script.events {
        if event.event == .dragBegin { dragging = true }
        if event.event == .dragEnd {
            invariant(dragging, "a dragEnd with no drag open")
            dragging = false
        }
    }
    guard let again = try? ScrollScript(jsonLines: Data(script.jsonLines().utf8)) else {
        invariant(false, "a parsed script's JSON Lines do not parse")
        return 0
    }
    invariant(again.events == script.events, "the round trip changed the events")
    return 0
}

runFuzzer(fuzzScrollScript)
