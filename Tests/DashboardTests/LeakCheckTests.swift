import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// LeakSanitizer's own check (issue 50). `scripts/sanitize address` runs this test with
/// `HOTELKIT_LEAK_ON_PURPOSE=1` and requires LeakSanitizer to fail the run with a report naming `LeakOnPurpose`.
/// The leak is made where the dashboard's own code runs: in a route's handler behind `app.test(.router)`, a child
/// task of Hummingbird's `RouterTestFramework.Client.executeRequest`, whose request channel
/// `scripts/lsan-suppressions.txt` suppresses. Were that suppression (or any other) broad enough to hide what a
/// responder allocates, the check would fail. Without the switch the same cycles are made, broken and freed.
@Suite("LeakSanitizer still sees a responder's leaks")
struct LeakCheckTests {
    @Test("cycles made in a route's handler are freed once broken (left whole with HOTELKIT_LEAK_ON_PURPOSE=1, for LeakSanitizer)")
    func cycleInAResponder() async throws {
        let leaving = ProcessInfo.processInfo.environment["HOTELKIT_LEAK_ON_PURPOSE"] == "1"
        let router = Router()
        // Eight cycles, not one: a stale copy of one's address on a thread's stack could keep it from the report.
        router.get("/cycles") { _, _ in "\(LeakOnPurpose.makeCycles(8, leaving: leaving)) alive" }
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/cycles", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == (leaving ? "8 alive" : "0 alive"))
            }
        }
    }
}

/// A node of a two-node retain cycle.
final class LeakOnPurposeNode {
    var other: LeakOnPurposeNode?
}

enum LeakOnPurpose {
    /// Makes `count` pairs of nodes that hold each other and lets go of them, after breaking each cycle unless
    /// `leaving`. Returns how many pairs outlived that: none once broken, all when left (a leak).
    static func makeCycles(_ count: Int, leaving: Bool) -> Int {
        var firsts: [Weak] = []
        for _ in 0..<count {
            let one = LeakOnPurposeNode()
            let two = LeakOnPurposeNode()
            one.other = two
            two.other = one
            firsts.append(Weak(node: one))
            if !leaving { two.other = nil }
        }
        return firsts.count { $0.node != nil }
    }

    struct Weak {
        weak var node: LeakOnPurposeNode?
    }
}
