import Foundation

/// A name token's number within one ``TokenStatistics``.
typealias TokenID = Int32

/// What one name token is worth, as the records taught.
public struct TokenSummary: Sendable, Hashable, Codable {
    public var token: String
    /// Records whose name has the token.
    public var records: Int
    /// Places, more than ``FrequencyConfiguration/placeRadiusMetres`` apart, where those records are.
    public var places: Int
    /// How rare the token is among all names: log₂((records seen + prior) / (records with it + 1)).
    public var rarityBits: Double
    /// What agreeing on it is worth: ``rarityBits``, cut in proportion when the token is at many places.
    public var agreementBits: Double
}

/// Name token frequencies learned from the records being matched.
///
/// A token's *rarity* is its inverse document frequency. A token common to
/// records far apart is a brand ("ibis") or a generic word ("grand"): two
/// records sharing it may be any two of that brand's hotels, so its
/// *agreement* weight falls with the number of places it is found at. A
/// landmark ("nord" of Gare du Nord) is found at one place and keeps its
/// weight even when many hotels there carry it. A token's absence is judged
/// by its rarity alone: a name without "styles" is not an Ibis Styles however
/// many Ibis Styles there are.
public struct TokenStatistics: Sendable {
    public let recordCount: Int
    let strings: [String]
    /// Each token's characters, for edit distances.
    let characters: [[Unicode.Scalar]]
    let containsDigit: [Bool]
    let records: [Int]
    let places: [Int]
    let rarity: [Double]
    let agreement: [Double]
    /// Each token's records, in index order.
    let holders: [[Int]]
    let positions: [GeoPoint?]
    /// Each record's supplier, numbered.
    let suppliers: [Int]
    let recordTokens: [[TokenID]]
    /// Each record's phone and address keys: two records of one supplier that share one are one hotel.
    let identityKeys: [[String]]
    let configuration: FrequencyConfiguration
    private let ids: [String: TokenID]

    /// Learns from every record's name tokens and cleaned position; returns
    /// the statistics and each record's tokens as ids.
    static func learn(
        names: [[String]], positions: [GeoPoint?], suppliers: [SupplierKey], identityKeys: [[String]],
        configuration: FrequencyConfiguration
    ) -> (TokenStatistics, [[TokenID]]) {
        var ids: [String: TokenID] = [:]
        var strings: [String] = []
        var holders: [[Int]] = []
        let recordTokens = names.enumerated().map { record, tokens in
            tokens.map { token -> TokenID in
                let id: TokenID
                if let known = ids[token] {
                    id = known
                } else {
                    id = TokenID(strings.count)
                    ids[token] = id
                    strings.append(token)
                    holders.append([])
                }
                holders[Int(id)].append(record)
                return id
            }
        }
        let places = holders.map { Self.countPlaces(of: $0, positions: positions, configuration: configuration) }
        let rarity = holders.map { rarityBits(records: $0.count, of: names.count, configuration: configuration) }
        let agreement = rarity.indices.map { index in
            rarity[index] * spreadFactor(places: places[index], configuration: configuration)
        }
        let statistics = TokenStatistics(
            recordCount: names.count,
            strings: strings,
            characters: strings.map { Array($0.unicodeScalars) },
            containsDigit: strings.map { $0.utf8.contains { $0 >= 0x30 && $0 <= 0x39 } },
            records: holders.map(\.count),
            places: places,
            rarity: rarity,
            agreement: agreement,
            holders: holders,
            positions: positions,
            suppliers: Self.numbered(suppliers),
            recordTokens: recordTokens,
            identityKeys: identityKeys,
            configuration: configuration,
            ids: ids
        )
        return (statistics, recordTokens)
    }

    static func rarityBits(records: Int, of total: Int, configuration: FrequencyConfiguration) -> Double {
        max(0, populationBits(total, configuration: configuration) - stepped(log2(Double(records + 1))))
    }

    /// log₂ of the records seen (with the prior), down to a step of ``countStep`` bits.
    static func populationBits(_ total: Int, configuration: FrequencyConfiguration) -> Double {
        stepped(log2(Double(total) + configuration.priorRecords))
    }

    /// Counts are weighed in steps of an eighth of a bit (about 9 % more or fewer records), a change no
    /// weight of the model is precise to: a city's weights then stay as they are while a refresh adds or
    /// removes a few records, and only the records that changed and their neighbours need matching again.
    static let countStep = 0.125

    private static func stepped(_ bits: Double) -> Double {
        (bits / countStep).rounded(.down) * countStep
    }

    static func spreadFactor(places: Int, configuration: FrequencyConfiguration) -> Double {
        min(1, Double(configuration.placesBeforeSpread) / Double(max(1, places)))
    }

    /// Places found by taking each position in record order and starting a
    /// new place when it is farther than the radius from every place so far.
    /// Counting stops at 64: beyond that the token is spread whatever the number.
    static func countPlaces(of holders: [Int], positions: [GeoPoint?], configuration: FrequencyConfiguration) -> Int {
        var leaders: [GeoPoint] = []
        for record in holders {
            guard let position = positions[record] else { continue }
            if !leaders.contains(where: { $0.distance(to: position) <= configuration.placeRadiusMetres }) {
                leaders.append(position)
                if leaders.count >= 64 { break }
            }
        }
        return leaders.count
    }

    /// A token's number here; nil for a token no name has.
    func id(of token: String) -> TokenID? { ids[token] }

    /// The records whose names have a token, in index order.
    func holders(of token: String) -> [Int] { ids[token].map { holders[Int($0)] } ?? [] }

    /// log₂ of the records seen, as rarity reckons it (``populationBits(_:configuration:)``).
    var populationBits: Double { Self.populationBits(recordCount, configuration: configuration) }

    /// What the records taught about a token; nil for a token no name has.
    public func summary(for token: String) -> TokenSummary? {
        guard let id = ids[token] else { return nil }
        return summary(id)
    }

    func summary(_ id: TokenID) -> TokenSummary {
        let index = Int(id)
        return TokenSummary(
            token: strings[index], records: records[index], places: places[index],
            rarityBits: rarity[index], agreementBits: agreement[index])
    }

    /// The most common tokens first, for a report of what was learned.
    public func mostCommon(_ count: Int) -> [TokenSummary] {
        strings.indices
            .sorted { records[$0] != records[$1] ? records[$0] > records[$1] : strings[$0] < strings[$1] }
            .prefix(max(0, count))
            .map { summary(TokenID($0)) }
    }
}
