import Foundation
import Hotels
import OfflineStore
import PostgresTestSupport
import Seeding
import Testing

/// ``PagePlan`` is the one statement of how a page changes a list; each
/// store executes it, and SQLite's and PostgreSQL's load-more fast paths must
/// come to what it says. Random sequences of pages (new, changed, moved and
/// repeated codes, empty pages, page-1 merges that stitch or replace) go to
/// the planner, applied to a plain model of the list, and to both stores:
/// after every page, the rows, their positions, the count, the checkpoint and
/// what the call returned must be the same.
@Suite("PagePlan is the rule both stores follow", .closingStores)
struct PageRuleTests {
    /// A list as the planner says it is.
    struct ModelList {
        var rows: [String: (hotel: Hotel, position: Int64)] = [:]
        var checkpoint: Pager.Checkpoint?
        var top: Int64 = 0
        var next: Int64 = 0

        var state: PagePlan.ListState {
            PagePlan.ListState(isEmpty: rows.isEmpty, hasCheckpoint: checkpoint != nil, top: top, next: next)
        }

        mutating func apply(_ plan: PagePlan, checkpoint: Pager.Checkpoint) {
            if plan.replacesList { rows = [:] }
            for row in plan.updates {
                rows[row.hotel.code] = (row.hotel, row.position ?? rows[row.hotel.code]?.position ?? 0)
            }
            for row in plan.inserts { rows[row.hotel.code] = (row.hotel, row.position ?? 0) }
            if plan.savesCheckpoint { self.checkpoint = checkpoint }
            (top, next) = (plan.top, plan.next)
        }

        var ordered: [Hotel] { rows.values.sorted { $0.position < $1.position }.map(\.hotel) }
        var positions: [Int64] { rows.values.map(\.position).sorted() }
    }

    /// One step: a page, and whether it is page 1 (merged) or "load more" (appended).
    struct Step: CustomStringConvertible {
        var isFirstPage: Bool
        var page: [Hotel]
        var checkpoint: Pager.Checkpoint

        var description: String {
            (isFirstPage ? "merge " : "append ") + page.map { "\($0.code)@\($0.addtime ?? 0):\($0.name ?? "")" }.joined(separator: " ")
        }
    }

    /// Pages drawn from 24 codes, so codes recur across pages and within one: with other names (changed) and addtimes (moved).
    static func steps(seed: UInt64, count: Int) -> [Step] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { number in
            let size = Int.random(in: 0...7, using: &random)
            let page = (0..<size).map { _ in
                let code = Int.random(in: 0..<24, using: &random)
                return Hotel(
                    code: "C\(code)", name: "Hotel \(code)" + (Bool.random(using: &random) ? "" : " renamed"),
                    addtime: Int64(100 - code + (Int.random(in: 0..<4, using: &random) == 0 ? 50 : 0)))
            }
            let checkpoint = Pager.Checkpoint(
                pagesReceived: number + 1, nextPage: number + 2, nextCursor: "c\(number)", usedCursors: [], end: nil)
            return Step(isFirstPage: Int.random(in: 0..<4, using: &random) == 0, page: page, checkpoint: checkpoint)
        }
    }

    @Test(
        "random page sequences: the planner's model and the store end every page with the same rows, positions, count, checkpoint and result",
        arguments: Backend.allCases)
    func storesFollowThePlan(_ backend: Backend) async throws {
        for seed in UInt64(1)...12 {
            let store = try await backend.makeStore()
            let key = ListKey(profile: "sample", endpoint: "http://127.0.0.1:1/soap", city: "Seed \(seed)")
            var model = ModelList()
            for (number, step) in Self.steps(seed: seed, count: 30).enumerated() {
                let context: Comment = "seed \(seed), page \(number): \(step)"
                if step.isFirstPage {
                    let codes = Set(step.page.map(\.code))
                    let existing = model.rows.filter { codes.contains($0.key) }.mapValues(\.hotel)
                    let plan = PagePlan.merge(step.page, existing: existing, list: model.state)
                    model.apply(plan, checkpoint: step.checkpoint)
                    let result = try await store.mergeFirstPage(step.page, into: key, checkpoint: step.checkpoint, now: Date())
                    #expect(result == plan.merge, context)
                } else {
                    let plan = PagePlan.append(step.page, existing: Set(model.rows.keys), list: model.state)
                    model.apply(plan, checkpoint: step.checkpoint)
                    let added = try await store.appendPage(step.page, to: key, checkpoint: step.checkpoint, now: Date())
                    #expect(added == plan.added, context)
                }
                let list = try await store.cachedList(key)
                var rows = ListRows()
                if let list { rows = try await store.rows(in: list, after: nil, limit: 1_000, matching: nil) }
                #expect(rows.hotels == model.ordered, context)
                #expect(rows.positions == model.positions, context)
                #expect((list?.count ?? 0) == model.rows.count, context)
                #expect(list?.checkpoint == model.checkpoint, context)
                if rows.hotels != model.ordered || rows.positions != model.positions { return }
            }
        }
    }
}
