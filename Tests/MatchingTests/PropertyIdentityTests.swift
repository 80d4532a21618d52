import Foundation
import Matching
import Testing

/// Stable ids: what a property's id follows from one run to the next.
@Suite("Property ids")
struct PropertyIdentityTests {
    static func key(_ code: String) -> RecordKey { RecordKey(profile: "p", endpoint: "http://e.test/soap", code: code) }
    static let (a, b, c, d, e) = (key("A"), key("B"), key("C"), key("D"), key("E"))
    let monday = Date(timeIntervalSince1970: 1_000)
    let tuesday = Date(timeIntervalSince1970: 2_000)

    @Test("the same properties keep their ids; a new one gets an id made from its scope and first member, the same on any machine")
    func unchanged() {
        let first = PropertyIdentities(assigning: [[Self.a, Self.b], [Self.c]], scope: "paris", previous: [], taken: [], now: monday)
        #expect(first.ids.allSatisfy { $0.count == 13 && $0.hasPrefix("P") } && Set(first.ids).count == 2)
        #expect(
            first.ids
                == PropertyIdentities(assigning: [[Self.a, Self.b], [Self.c]], scope: "paris", previous: [], taken: [], now: monday).ids)
        #expect(
            first.ids
                != PropertyIdentities(assigning: [[Self.a, Self.b], [Self.c]], scope: "lyon", previous: [], taken: [], now: monday).ids)
        let previous = zip(first.ids, [[Self.a, Self.b], [Self.c]]).map { PropertyIdentity(id: $0, members: $1, createdAt: monday) }
        // A member joins, another leaves: the ids stay while any member remains.
        let second = PropertyIdentities(
            assigning: [[Self.b, Self.d], [Self.c, Self.e]], scope: "paris", previous: previous, taken: [], now: tuesday)
        #expect(second.ids == first.ids && second.createdAt == [monday, monday] && second.retired.isEmpty)
    }

    @Test("a merge keeps the older id and retires the other with it as successor; a split leaves the id with the larger part")
    func mergeAndSplit() {
        let previous = [
            PropertyIdentity(id: "PNEWER", members: [Self.a], createdAt: tuesday),
            PropertyIdentity(id: "POLDER", members: [Self.b], createdAt: monday),
        ]
        let merged = PropertyIdentities(assigning: [[Self.a, Self.b]], scope: "paris", previous: previous, taken: [], now: tuesday)
        #expect(merged.ids == ["POLDER"] && merged.createdAt == [monday])
        #expect(merged.retired == [RetiredPropertyID(id: "PNEWER", successor: "POLDER")])

        let whole = [PropertyIdentity(id: "PWHOLE", members: [Self.a, Self.b, Self.c], createdAt: monday)]
        let split = PropertyIdentities(assigning: [[Self.a], [Self.b, Self.c]], scope: "paris", previous: whole, taken: [], now: tuesday)
        #expect(split.ids[1] == "PWHOLE" && split.ids[0] != "PWHOLE" && split.createdAt == [tuesday, monday])
        // An even split: the part whose first member comes first keeps it.
        let even = PropertyIdentities(
            assigning: [[Self.c, Self.d], [Self.a, Self.b]], scope: "paris",
            previous: [PropertyIdentity(id: "PEVEN", members: [Self.a, Self.b, Self.c, Self.d], createdAt: monday)],
            taken: [], now: tuesday)
        #expect(even.ids[0] == "PEVEN")
    }

    @Test("an id whose members are all gone is retired with no successor, and a new property never takes an id in use or retired")
    func retiredAndTaken() {
        let gone = PropertyIdentities(
            assigning: [[Self.c]], scope: "paris",
            previous: [PropertyIdentity(id: "PGONE", members: [Self.a], createdAt: monday)], taken: [], now: tuesday)
        #expect(gone.retired == [RetiredPropertyID(id: "PGONE", successor: nil)] && gone.ids != ["PGONE"])
        let usual = PropertyIdentities(assigning: [[Self.c]], scope: "paris", previous: [], taken: [], now: tuesday).ids[0]
        let avoided = PropertyIdentities(assigning: [[Self.c]], scope: "paris", previous: [], taken: [usual], now: tuesday).ids[0]
        #expect(avoided != usual && avoided.count == 13)
        // Two new properties never share an id, however their seeds fall.
        let many = PropertyIdentities(
            assigning: (0..<2_000).map { [Self.key("H\($0)")] }, scope: "paris", previous: [], taken: [], now: tuesday)
        #expect(Set(many.ids).count == 2_000)
    }
}
