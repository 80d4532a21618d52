import Foundation
import Hotels
import Scheduling

/// `hotels browse`'s search: `/` opens the search line, Enter looks for what
/// was typed among the loaded rows, and `n` looks for it again.
struct BrowseSearch {
    /// The query being typed, while the search line is open.
    private(set) var typing: String?
    private(set) var lastQuery: String?
    /// The code of the hotel the last search found: its row is highlighted.
    var match: String?

    enum Outcome {
        case typing
        case find(String)
        case quit
    }

    mutating func open() {
        typing = ""
    }

    /// A key while the search line is open.
    mutating func type(_ key: Key) -> Outcome {
        switch key {
        case .escape: typing = nil
        case .enter:
            defer { typing = nil }
            if let query = typing, !query.isEmpty {
                lastQuery = query
                return .find(query)
            }
        case .backspace: typing = typing.map { String($0.dropLast()) }
        case .character(let character): typing?.append(character)
        case .control("c"): return .quit
        default: break
        }
        return .typing
    }

    /// The first loaded row after `top` whose hotel's name or address holds `query`, wrapping around.
    static func row(matching query: String, after top: Int, in rows: [ListRow], hotels: [String: Hotel]) -> Int? {
        guard !rows.isEmpty else { return nil }
        return (1...rows.count).lazy.map { (top + $0) % rows.count }.first { row in
            guard let hotel = hotels[rows[row].code] else { return false }
            return [hotel.name, hotel.address].contains { $0?.localizedCaseInsensitiveContains(query) == true }
        }
    }
}
