import Failures

/// Why a catalogue command could not do what was asked, in plain words.
public struct CatalogueError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The store holds no list (of the cities asked for): nothing to match.
        case nothingToMatch
        /// A `LIST:CODE` that is not one: no colon, or no number before it.
        case malformedReference
        /// A list id the store does not hold.
        case unknownList
        /// A code the list does not hold.
        case unknownRecord
        /// Both references name one record.
        case sameRecord
        /// A `same` decision about records of two cities' lists, which are matched apart.
        case acrossScopes
        /// A property id the store does not hold.
        case unknownProperty
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// A record named as `LIST:CODE`: a list's id in the store and a hotel code in it.
public struct RecordReference: Sendable, Hashable, CustomStringConvertible {
    public var list: Int64
    public var code: String

    public init(list: Int64, code: String) {
        self.list = list
        self.code = code
    }

    /// `3:PAR1234`; the code is everything after the first colon, so a code may hold colons.
    public init(parsing text: String) throws(CatalogueError) {
        guard let colon = text.firstIndex(of: ":"), let list = Int64(text[..<colon]), list > 0, text.index(after: colon) < text.endIndex
        else {
            throw CatalogueError(.malformedReference, "\"\(text)\" is not LIST:CODE (a list's id, a colon, a hotel code: 3:PAR1234)")
        }
        self.init(list: list, code: String(text[text.index(after: colon)...]))
    }

    public var description: String { "\(list):\(code)" }
}

extension CatalogueError: MeaningfulError {
    /// An empty store or an unknown list, record or property is no input (66); a record named wrong is usage (64).
    public var meaning: ErrorMeaning {
        switch kind {
        case .nothingToMatch:
            ErrorMeaning(
                kind: .noInput, status: .noInput,
                hint: "hotels fetch --city CITY --endpoint URL fills the store; hotels cache stats shows what is there")
        case .malformedReference, .sameRecord, .acrossScopes:
            ErrorMeaning(kind: .usage, status: .usage, hint: "name a record as LIST:CODE; hotels match review prints pairs that way")
        case .unknownList, .unknownRecord:
            ErrorMeaning(
                kind: .noInput, status: .noInput, hint: "hotels cache stats lists the lists; hotels list --city CITY prints a list's codes")
        case .unknownProperty:
            ErrorMeaning(kind: .noInput, status: .noInput, hint: "hotels properties lists the ids; hotels match makes them")
        }
    }
}
