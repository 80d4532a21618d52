import Hotels
import Scheduling
import Testing

@testable import Browsing

@Suite("hotels browse's search")
struct BrowseSearchTests {
    let rows = ["A", "B", "C", "D"].map { ListRow(code: $0, logoURL: nil) }
    let hotels = [
        "A": Hotel(code: "A", name: "Grand Hôtel"), "B": Hotel(code: "B", name: "Ibis", address: "2 Grand Rue"),
        "D": Hotel(code: "D", name: "grand central"),
    ]

    @Test("the next row after the top whose name or address holds the query, in any case, wrapping past the end")
    func nextMatchWraps() {
        #expect(BrowseSearch.row(matching: "GRAND", after: 0, in: rows, hotels: hotels) == 1)
        #expect(BrowseSearch.row(matching: "grand", after: 1, in: rows, hotels: hotels) == 3)
        #expect(BrowseSearch.row(matching: "grand", after: 3, in: rows, hotels: hotels) == 0)
        #expect(BrowseSearch.row(matching: "ritz", after: 0, in: rows, hotels: hotels) == nil)
        #expect(BrowseSearch.row(matching: "grand", after: 0, in: [], hotels: hotels) == nil)
    }

    @Test("typing: Enter finds what was typed and remembers it for n; Escape and an empty query find nothing")
    func typing() {
        var search = BrowseSearch()
        search.open()
        for character in "Ibis" { _ = search.type(.character(character)) }
        _ = search.type(.backspace)
        guard case .find("Ibi") = search.type(.enter) else {
            Issue.record("Enter did not search")
            return
        }
        #expect(search.typing == nil && search.lastQuery == "Ibi")
        search.open()
        guard case .typing = search.type(.enter) else {
            Issue.record("an empty query searched")
            return
        }
        search.open()
        _ = search.type(.character("x"))
        _ = search.type(.escape)
        #expect(search.typing == nil && search.lastQuery == "Ibi")
        guard case .quit = search.type(.control("c")) else {
            Issue.record("Ctrl-C did not quit")
            return
        }
    }
}
