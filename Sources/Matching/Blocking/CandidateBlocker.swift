/// Which rule proposed a candidate pair.
public enum BlockingRule: String, Sendable, Hashable, Codable, CaseIterable, CodingKeyRepresentable {
    /// Positions in the same or a neighbouring grid cell, and either near or
    /// with names that share a token (or two one typo apart).
    case grid
    /// A name token that few records of the city carry.
    case rareNameToken
    /// Two of the three rarest tokens of a name, together, in one city:
    /// "Holiday Inn Express Saint-Germain" has no rare token, but few names
    /// have both "express" and "germain".
    case nameTokenPair
    /// The same phone number's last 8 digits.
    case phone
    /// The same code in the same catalogue.
    case reference
}

/// The pairs worth scoring, and how many each rule proposed.
public struct CandidatePairs: Sendable {
    /// Record indices, `first < second`, in order; each pair as one number (``IndexPair``): 8 bytes a pair,
    /// not 16, for the millions of a large city.
    let keys: [UInt64]
    /// Pairs each rule proposed, before pairs proposed by several rules were counted once.
    public let proposedBy: [BlockingRule: Int]
    public let recordCount: Int

    public var count: Int { keys.count }

    /// Pairs per record: each pair counts for both its records.
    public var perRecord: Double { recordCount == 0 ? 0 : 2 * Double(keys.count) / Double(recordCount) }
}

/// The blocking stage: candidate pairs in time that grows with the records,
/// not with their square.
///
/// Every rule is local: a grid cell and its neighbours, bounded by the
/// nearest ``BlockingConfiguration/maxNeighbours``; a name token only while
/// few records of one city carry it; a phone number or catalogue code only
/// while few records share it. A record without a position still meets
/// others through its name, phone and references.
struct CandidateBlocker {
    let configuration: BlockingConfiguration

    func candidates(_ records: [Normalised], nameTokens: [[TokenID]], statistics: TokenStatistics) -> CandidatePairs {
        var byRule: [BlockingRule: [UInt64]] = [:]
        byRule[.grid] = gridPairs(records, nameTokens: nameTokens, statistics: statistics)
        // Keys of numbers, not of text: a city's records would otherwise make a string per key.
        let cities = Self.cityNumbers(records)
        byRule[.rareNameToken] = rareTokenPairs(nameTokens, cities: cities, statistics: statistics)
        byRule[.nameTokenPair] = sharedKeyPairs(
            nameTokens.indices.map { index in
                tokenPairKeys(nameTokens[index], statistics: statistics).map { CityTokens(city: cities[index], first: $0.0, second: $0.1) }
            })
        byRule[.phone] = sharedKeyPairs(records.map { record in record.phone.map { [RecordNormaliser.phoneKey($0)] } ?? [] })
        byRule[.reference] = sharedKeyPairs(records.map { record in record.references.map { "\($0.key)\u{1F}\($0.value)" } })

        let proposedBy = byRule.mapValues(\.count)
        // Each rule's keys go as they are joined: a large city's are tens of megabytes.
        var all: [UInt64] = []
        all.reserveCapacity(proposedBy.values.reduce(0, +))
        for rule in BlockingRule.allCases { all += byRule.removeValue(forKey: rule) ?? [] }
        return CandidatePairs(keys: Self.sortedUnique(all), proposedBy: proposedBy, recordCount: records.count)
    }

    /// Pair keys in order, each once: sorting an array is cheaper than hashing into a set at millions of pairs.
    /// Sorted in place: taken over (`consuming`), a city's millions of keys are not copied first.
    private static func sortedUnique(_ keys: consuming [UInt64]) -> [UInt64] {
        keys.sort()
        var kept = 0
        for index in keys.indices where index == 0 || keys[index] != keys[kept - 1] {
            keys[kept] = keys[index]
            kept += 1
        }
        keys.removeLast(keys.count - kept)
        return keys
    }

    /// Near records, and records nearby whose names share a token. Each is
    /// found through an index, never by testing every neighbour: a dense
    /// city centre has hundreds of records within a cell's reach.
    private func gridPairs(_ records: [Normalised], nameTokens: [[TokenID]], statistics: TokenStatistics) -> [UInt64] {
        let positions = records.map(\.position)
        var nearFilling: [GridCell: [Int]] = [:]
        var tokenFilling: [GridCell: [TokenID: [Int]]] = [:]
        for (index, position) in positions.enumerated() {
            guard let position else { continue }
            nearFilling[GridCell(position, cellMetres: configuration.nearMetres), default: []].append(index)
            let cell = GridCell(position, cellMetres: configuration.cellMetres)
            for token in nameTokens[index] { tokenFilling[cell, default: [:]][token, default: []].append(index) }
        }
        let (nearCells, tokenCells) = (nearFilling, tokenFilling)
        let typos = typoNeighbours(statistics)
        let pairs = ParallelChunks.map(records.count, chunkSize: 2_048) { range in
            var pairs: [UInt64] = []
            for index in range {
                guard let position = positions[index] else { continue }
                var neighbours: [Int] = []
                for cell in GridCell.neighbourhood(of: position, cellMetres: configuration.nearMetres) {
                    for other in nearCells[cell] ?? [] where other != index {
                        if let otherPosition = positions[other], position.isWithin(configuration.nearMetres, of: otherPosition) {
                            neighbours.append(other)
                        }
                    }
                }
                for cell in GridCell.neighbourhood(of: position, cellMetres: configuration.cellMetres) {
                    guard let holders = tokenCells[cell] else { continue }
                    for token in nameTokens[index] {
                        for other in holders[token] ?? [] where other != index { neighbours.append(other) }
                        for variant in typos[Int(token)] {
                            for other in holders[variant] ?? [] where other != index { neighbours.append(other) }
                        }
                    }
                }
                if neighbours.count > configuration.maxNeighbours {
                    // A dense block: the nearest only, ties broken by index so that every run chooses the same.
                    let nearest = Set(neighbours).map { (index: $0, metres: positions[$0].map(position.distance) ?? .infinity) }
                        .sorted { ($0.metres, $0.index) < ($1.metres, $1.index) }
                    neighbours = nearest.prefix(configuration.maxNeighbours).map(\.index)
                }
                // Both records of a pair may propose it, and a neighbour may come twice: kept once below.
                for neighbour in neighbours { pairs.append(IndexPair.key(index, neighbour)) }
            }
            // Each chunk's repeats go before the chunks are joined: a large city's grid proposes millions.
            return Self.sortedUnique(pairs)
        }
        return Self.sortedUnique(pairs)
    }

    /// One city's name tokens, as a blocking key: one token, or two.
    private struct CityTokens: Hashable {
        let city: Int32
        let first: TokenID
        let second: TokenID
    }

    /// Each record's city as a number, the same for the same ``Normalised/cityKey``.
    private static func cityNumbers(_ records: [Normalised]) -> [Int32] {
        var numbers: [String: Int32] = [:]
        return records.map { record in
            if let known = numbers[record.cityKey] { return known }
            let number = Int32(numbers.count)
            numbers[record.cityKey] = number
            return number
        }
    }

    private func rareTokenPairs(_ nameTokens: [[TokenID]], cities: [Int32], statistics: TokenStatistics) -> [UInt64] {
        var groups: [CityTokens: [Int]] = [:]
        for (index, tokens) in nameTokens.enumerated() {
            for token in tokens where statistics.records[Int(token)] <= configuration.rareTokenMaxRecords {
                groups[CityTokens(city: cities[index], first: token, second: -1), default: []].append(index)
            }
        }
        var pairs: [UInt64] = []
        for group in groups.values { addAllPairs(group, to: &pairs) }
        return Self.sortedUnique(pairs)
    }

    /// Each token's tokens one typo away, as the name comparison lets agree
    /// ("rinatagran", "rinatagren"): tokens that share a typo key, checked.
    private func typoNeighbours(_ statistics: TokenStatistics) -> [[TokenID]] {
        var byKey: [String: [TokenID]] = [:]
        for token in statistics.strings.indices where !statistics.containsDigit[token] {
            for key in Self.typoKeys(statistics.strings[token]) { byKey[key, default: []].append(TokenID(token)) }
        }
        var neighbours = [[TokenID]](repeating: [], count: statistics.strings.count)
        // A key that many tokens share is a short common stem: it would pair names that agree on nothing.
        for group in byKey.values where group.count > 1 && group.count <= configuration.maxSharedKeyRecords {
            for (position, a) in group.enumerated() {
                for b in group[(position + 1)...]
                where TokenSimilarity.isOneTypoApart(statistics.characters[Int(a)], statistics.characters[Int(b)]) {
                    neighbours[Int(a)].append(b)
                    neighbours[Int(b)].append(a)
                }
            }
        }
        // Two tokens may share two keys ("abcde" and "abdce" share "abde" and "abce").
        return neighbours.map { $0.count > 1 ? Array(Set($0)).sorted() : $0 }
    }

    /// The token, and, when it is long enough to be the longer of two words
    /// one typo apart (``TokenSimilarity/shortestTypoWord``), the token
    /// without each one of its characters: two tokens one substitution,
    /// insertion, deletion or exchange apart share one of these keys.
    /// (Tokens with a digit never agree by a typo, and get none.) Each key
    /// once: without either s of "grasse" is one key, and a key's tokens
    /// are counted against a cap.
    private static func typoKeys(_ token: String) -> [String] {
        let characters = Array(token.unicodeScalars)
        guard characters.count >= TokenSimilarity.shortestTypoWord.longer else { return [token] }
        var keys = [token]
        for removed in characters.indices where removed == 0 || characters[removed] != characters[removed - 1] {
            var key = String.UnicodeScalarView()
            key.append(contentsOf: characters[..<removed])
            key.append(contentsOf: characters[(removed + 1)...])
            keys.append(String(key))
        }
        return keys
    }

    /// Each pair of the record's three rarest tokens (fewest records, then alphabetical), the lower id first.
    private func tokenPairKeys(_ tokens: [TokenID], statistics: TokenStatistics) -> [(TokenID, TokenID)] {
        guard tokens.count > 1 else { return [] }
        let rarest = tokens.sorted { a, b in
            let (recordsA, recordsB) = (statistics.records[Int(a)], statistics.records[Int(b)])
            return recordsA != recordsB ? recordsA < recordsB : statistics.strings[Int(a)] < statistics.strings[Int(b)]
        }.prefix(3).sorted()
        var keys: [(TokenID, TokenID)] = []
        for (position, first) in rarest.enumerated() {
            for second in rarest[(position + 1)...] { keys.append((first, second)) }
        }
        return keys
    }

    private func sharedKeyPairs<Key: Hashable>(_ keys: [[Key]]) -> [UInt64] {
        var groups: [Key: [Int]] = [:]
        for (index, recordKeys) in keys.enumerated() {
            for key in recordKeys { groups[key, default: []].append(index) }
        }
        var pairs: [UInt64] = []
        for group in groups.values where group.count <= configuration.maxSharedKeyRecords { addAllPairs(group, to: &pairs) }
        return Self.sortedUnique(pairs)
    }

    private func addAllPairs(_ group: [Int], to pairs: inout [UInt64]) {
        guard group.count > 1 else { return }
        for a in group.indices {
            for b in group.indices where b > a { pairs.append(IndexPair.key(group[a], group[b])) }
        }
    }
}
