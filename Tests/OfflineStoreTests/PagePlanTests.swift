import Hotels
import OfflineStore
import Testing

/// The page rules both stores execute, tested once, without a database.
@Suite("A page's plan")
struct PagePlanTests {
    func hotel(_ code: String, _ addtime: Int64 = 1, name: String? = nil) -> Hotel {
        Hotel(code: code, name: name ?? "Hotel \(code)", addtime: addtime)
    }

    let cached = PagePlan.ListState(isEmpty: false, hasCheckpoint: true, top: -3, next: 0)

    @Test("page 1 into an empty list: every row inserted above 0, in the page's order, and its checkpoint saved")
    func intoEmpty() {
        let plan = PagePlan.merge(
            [hotel("A"), hotel("B")], existing: [:], list: .init(isEmpty: true, hasCheckpoint: false, top: 0, next: 0))
        #expect(plan.inserts.map(\.hotel.code) == ["A", "B"] && plan.inserts.map(\.position) == [-2, -1])
        #expect(plan.updates.isEmpty && !plan.replacesList && plan.savesCheckpoint)
        #expect(plan.merge == MergeResult(inserted: 2) && plan.top == -2 && plan.next == 0)
    }

    @Test("page 1 over a cached list: new codes inserted, changed rows updated, a changed addtime moves; the cached checkpoint holds")
    func overCached() {
        let existing = ["B": hotel("B"), "C": hotel("C"), "D": hotel("D")]
        let page = [hotel("A"), hotel("B"), hotel("C", name: "Renamed"), hotel("D", 9)]
        let plan = PagePlan.merge(page, existing: existing, list: cached)
        #expect(plan.merge == MergeResult(inserted: 1, updated: 1, moved: 1))
        #expect(plan.inserts == [PagePlan.Row(hotel: hotel("A"), position: -7)])
        #expect(plan.updates.map(\.hotel.code) == ["B", "C", "D"] && plan.updates.map(\.position) == [-6, -5, -4])
        #expect(!plan.savesCheckpoint && plan.top == -7 && plan.next == 0)
        var noCheckpoint = cached
        noCheckpoint.hasCheckpoint = false
        #expect(
            PagePlan.merge(page, existing: existing, list: noCheckpoint).savesCheckpoint, "a list without a continuation takes the page's")
    }

    @Test("page 1 that shares no code with the list replaces it, and its paging starts over")
    func replaces() {
        let plan = PagePlan.merge(
            [hotel("X"), hotel("Y")], existing: [:], list: PagePlan.ListState(isEmpty: false, hasCheckpoint: true, top: -40, next: 60))
        #expect(plan.replacesList && plan.merge == MergeResult(inserted: 2, replaced: true))
        #expect(plan.inserts.map(\.position) == [-2, -1] && plan.savesCheckpoint && plan.top == -2 && plan.next == 0)
    }

    @Test("a code twice in a page counts once, its first row; an empty page changes nothing")
    func repeatsAndEmpty() {
        let plan = PagePlan.merge([hotel("A"), hotel("A", 5), hotel("B")], existing: ["B": hotel("B")], list: cached)
        #expect(
            plan.inserts == [PagePlan.Row(hotel: hotel("A"), position: -6)]
                && plan.updates == [PagePlan.Row(hotel: hotel("B"), position: -4)])
        let empty = PagePlan.merge([], existing: [:], list: cached)
        #expect(empty.inserts.isEmpty && empty.updates.isEmpty && !empty.replacesList && empty.top == -3 && empty.next == 0)
    }

    @Test("load more: new codes after the last row in order, known ones updated where they are, a repeat once; the checkpoint saved")
    func append() {
        let list = PagePlan.ListState(isEmpty: false, hasCheckpoint: true, top: -2, next: 10)
        let plan = PagePlan.append([hotel("E"), hotel("B", name: "New"), hotel("F"), hotel("E")], existing: ["B"], list: list)
        #expect(plan.inserts.map(\.hotel.code) == ["E", "F"] && plan.inserts.map(\.position) == [10, 11])
        #expect(plan.updates == [PagePlan.Row(hotel: hotel("B", name: "New"), position: nil)])
        #expect(plan.added == 2 && plan.savesCheckpoint && !plan.replacesList && plan.top == -2 && plan.next == 12)
    }
}
