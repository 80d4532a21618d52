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

    /// Every candidate pair; with `focus`, only those with a record in it, exactly as a run over every pair would find them.
    /// `grid`: the records' ``GridNeighbours``, found once for them.
    func candidates(
        _ records: [Normalised], nameTokens: [[TokenID]], statistics: TokenStatistics, grid: GridNeighbours, focus: Focus? = nil
    ) -> CandidatePairs {
        var byRule: [BlockingRule: [UInt64]] = [:]
        byRule[.grid] = gridPairs(grid, count: records.count, focus: focus)
        if let focus {
            byRule[.rareNameToken] = focusedRareTokenPairs(focus, records: records, nameTokens: nameTokens, statistics: statistics)
            byRule[.nameTokenPair] = focusedTokenPairs(focus, records: records, nameTokens: nameTokens, statistics: statistics)
        } else {
            // Keys of numbers, not of text: a city's records would otherwise make a string per key.
            let cities = Self.cityNumbers(records)
            byRule[.rareNameToken] = rareTokenPairs(nameTokens, cities: cities, statistics: statistics)
            byRule[.nameTokenPair] = sharedKeyPairs(tokenPairKeys(nameTokens, cities: cities, statistics: statistics), focus: nil)
        }
        byRule[.phone] = sharedKeyPairs(records.map(Self.phoneKeys(of:)), focus: focus)
        byRule[.reference] = sharedKeyPairs(records.map(Self.referenceKeys(of:)), focus: focus)

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
    private func gridPairs(_ grid: GridNeighbours, count: Int, focus: Focus?) -> [UInt64] {
        let proposers = focus.map { proposingRecords(of: $0, grid: grid) } ?? Array(0..<count)
        let pairs = ParallelChunks.map(proposers.count, chunkSize: 2_048) { range in
            var pairs: [UInt64] = []
            for index in proposers[range] {
                // Both records of a pair may propose it: kept once below.
                for neighbour in grid.proposals(of: index) where focus?.holds(index, neighbour) ?? true {
                    pairs.append(IndexPair.key(index, neighbour))
                }
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

    /// The rare token rule's pairs with a record of `focus`, as ``rareTokenPairs(_:cities:statistics:)`` finds them: from
    /// the holders of the focus's rare tokens in its city.
    private func focusedRareTokenPairs(_ focus: Focus, records: [Normalised], nameTokens: [[TokenID]], statistics: TokenStatistics)
        -> [UInt64]
    {
        struct Key: Hashable {
            let city: String
            let token: TokenID
        }
        var seen = Set<Key>()
        var pairs: [UInt64] = []
        for record in focus.records {
            for token in nameTokens[record] where statistics.records[Int(token)] <= configuration.rareTokenMaxRecords {
                let key = Key(city: records[record].cityKey, token: token)
                guard seen.insert(key).inserted else { continue }
                addAllPairs(statistics.holders[Int(token)].filter { records[$0].cityKey == key.city }, to: &pairs, focus: focus)
            }
        }
        return Self.sortedUnique(pairs)
    }

    private func rareTokenPairs(_ nameTokens: [[TokenID]], cities: [Int32], statistics: TokenStatistics) -> [UInt64] {
        var groups: [CityTokens: [Int]] = [:]
        for (index, tokens) in nameTokens.enumerated() {
            for token in tokens where statistics.records[Int(token)] <= configuration.rareTokenMaxRecords {
                groups[CityTokens(city: cities[index], first: token, second: -1), default: []].append(index)
            }
        }
        var pairs: [UInt64] = []
        for group in groups.values { addAllPairs(group, to: &pairs, focus: nil) }
        return Self.sortedUnique(pairs)
    }

    /// Each token's tokens one typo away, as the name comparison lets agree
    /// ("rinatagran", "rinatagren"): tokens that share a typo key, checked.
    func typoNeighbours(_ statistics: TokenStatistics) -> [[TokenID]] {
        var neighbours = [[TokenID]](repeating: [], count: statistics.strings.count)
        for group in Self.typoKeyGroups(statistics).values where pairsTypos(group.count) {
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

    /// The tokens (without a digit) of each typo key, a token once for each time its keys give the key.
    static func typoKeyGroups(_ statistics: TokenStatistics) -> [String: [TokenID]] {
        var byKey: [String: [TokenID]] = [:]
        for token in statistics.strings.indices where !statistics.containsDigit[token] {
            for key in typoKeys(statistics.strings[token]) { byKey[key, default: []].append(TokenID(token)) }
        }
        return byKey
    }

    /// Whether the tokens of a typo key of this many are compared: a key that many tokens share is a short
    /// common stem, which would pair names that agree on nothing.
    func pairsTypos(_ count: Int) -> Bool { count > 1 && count <= configuration.maxSharedKeyRecords }

    /// The token, and, when it is long enough to be the longer of two words
    /// one typo apart (``TokenSimilarity/shortestTypoWord``), the token
    /// without each one of its characters: two tokens one substitution,
    /// insertion, deletion or exchange apart share one of these keys.
    /// (Tokens with a digit never agree by a typo, and get none.) Each key
    /// once: without either s of "grasse" is one key, and a key's tokens
    /// are counted against a cap.
    static func typoKeys(_ token: String) -> [String] {
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

    /// Each record's keys of the token pair rule, in its city.
    private func tokenPairKeys(_ nameTokens: [[TokenID]], cities: [Int32], statistics: TokenStatistics) -> [[CityTokens]] {
        nameTokens.indices.map { index in
            tokenPairKeys(nameTokens[index], statistics: statistics).map { CityTokens(city: cities[index], first: $0.0, second: $0.1) }
        }
    }

    /// A record's phone key (its last 8 digits), for the phone rule.
    static func phoneKeys(of record: Normalised) -> [String] { record.phone.map { [RecordNormaliser.phoneKey($0)] } ?? [] }

    /// A record's catalogue codes, for the reference rule.
    static func referenceKeys(of record: Normalised) -> [String] { record.references.map { "\($0.key)\u{1F}\($0.value)" } }

    /// Each pair of the record's three rarest tokens (then alphabetical), the lower id first.
    func tokenPairKeys(_ tokens: [TokenID], statistics: TokenStatistics) -> [(TokenID, TokenID)] {
        guard tokens.count > 1 else { return [] }
        // By rarity, which moves in steps, not by count: a record's keys then stay while a few records come or go.
        let rarest = tokens.sorted { a, b in
            let (rarityA, rarityB) = (statistics.rarity[Int(a)], statistics.rarity[Int(b)])
            return rarityA != rarityB ? rarityA > rarityB : statistics.strings[Int(a)] < statistics.strings[Int(b)]
        }.prefix(3).sorted()
        var keys: [(TokenID, TokenID)] = []
        for (position, first) in rarest.enumerated() {
            for second in rarest[(position + 1)...] { keys.append((first, second)) }
        }
        return keys
    }

    /// The token pair rule's pairs with a record of `focus`, as ``sharedKeyPairs(_:focus:)`` finds them over every
    /// record: only the groups of the focus's keys can hold such a pair, and each is found from the records
    /// holding both its tokens, not by making every record's keys.
    private func focusedTokenPairs(_ focus: Focus, records: [Normalised], nameTokens: [[TokenID]], statistics: TokenStatistics)
        -> [UInt64]
    {
        struct Key: Hashable {
            let city: String
            let first: TokenID
            let second: TokenID
        }
        var keysOf: [Int: [(TokenID, TokenID)]] = [:]
        func keys(_ index: Int) -> [(TokenID, TokenID)] {
            if let known = keysOf[index] { return known }
            let made = tokenPairKeys(nameTokens[index], statistics: statistics)
            keysOf[index] = made
            return made
        }
        var seen = Set<Key>()
        var pairs: [UInt64] = []
        for record in focus.records {
            for (first, second) in keys(record) {
                let key = Key(city: records[record].cityKey, first: first, second: second)
                guard seen.insert(key).inserted else { continue }
                let group = TokenStatistics.intersection(statistics.holders[Int(first)], statistics.holders[Int(second)]).filter { holder in
                    records[holder].cityKey == key.city && keys(holder).contains { $0 == (first, second) }
                }
                if group.count <= configuration.maxSharedKeyRecords { addAllPairs(group, to: &pairs, focus: focus) }
            }
        }
        return Self.sortedUnique(pairs)
    }

    private func sharedKeyPairs<Key: Hashable>(_ keys: [[Key]], focus: Focus?) -> [UInt64] {
        var groups: [Key: [Int]] = [:]
        for (index, recordKeys) in keys.enumerated() {
            for key in recordKeys { groups[key, default: []].append(index) }
        }
        var pairs: [UInt64] = []
        for group in groups.values where group.count <= configuration.maxSharedKeyRecords { addAllPairs(group, to: &pairs, focus: focus) }
        return Self.sortedUnique(pairs)
    }

    private func addAllPairs(_ group: [Int], to pairs: inout [UInt64], focus: Focus?) {
        guard group.count > 1 else { return }
        for a in group.indices {
            for b in group.indices where b > a && focus?.holds(group[a], group[b]) ?? true {
                pairs.append(IndexPair.key(group[a], group[b]))
            }
        }
    }

    /// The records whose grid proposals may hold a record of `focus`: its own, and every record whose
    /// neighbourhood of cells (of either grid) holds a cell of one of them.
    private func proposingRecords(of focus: Focus, grid: GridNeighbours) -> [Int] {
        Array(Set(focus.records).union(grid.records(reaching: focus.records))).sorted()
    }
}

/// The records a run's blocking is asked about: only pairs with one of them are found.
struct Focus: Sendable {
    let records: [Int]
    private let marked: [Bool]

    init(_ records: some Sequence<Int>, count: Int) {
        var marked = [Bool](repeating: false, count: count)
        for record in records { marked[record] = true }
        self.records = marked.indices.filter { marked[$0] }
        self.marked = marked
    }

    /// Whether a pair has a record in the focus.
    func holds(_ a: Int, _ b: Int) -> Bool { marked[a] || marked[b] }
}

/// Each record's neighbours in the grid: the records near it, and the records nearby whose names share a
/// token with its own or have one a typo away. Each is found through an index, never by testing every
/// neighbour: a dense city centre has hundreds of records within a cell's reach.
struct GridNeighbours {
    let positions: [GeoPoint?]
    private let nameTokens: [[TokenID]]
    private let typos: [[TokenID]]
    private let nearCells: [GridCell: [Int]]
    private let tokenCells: [GridCell: [TokenID: [Int]]]
    private let configuration: BlockingConfiguration

    init(_ records: [Normalised], nameTokens: [[TokenID]], typos: [[TokenID]], configuration: BlockingConfiguration) {
        positions = records.map(\.position)
        var nearCells: [GridCell: [Int]] = [:]
        var tokenCells: [GridCell: [TokenID: [Int]]] = [:]
        for (index, position) in positions.enumerated() {
            guard let position else { continue }
            nearCells[GridCell(position, cellMetres: configuration.nearMetres), default: []].append(index)
            let cell = GridCell(position, cellMetres: configuration.cellMetres)
            for token in nameTokens[index] { tokenCells[cell, default: [:]][token, default: []].append(index) }
        }
        (self.nameTokens, self.typos, self.nearCells, self.tokenCells, self.configuration) =
            (nameTokens, typos, nearCells, tokenCells, configuration)
    }

    /// Every neighbour, some more than once; none for a record without a position.
    func all(of index: Int) -> [Int] {
        guard let position = positions[index] else { return [] }
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
        return neighbours
    }

    /// The records whose neighbourhood of cells, in either grid, holds one of `points`: the records whose
    /// proposals a record at one of them may enter. Neighbourhoods are not symmetric (a row's columns do not
    /// line up with the next row's), so the records of the cells that may reach a point are each checked.
    /// With `nearOnly`, in the grid of near records only.
    func records(near points: [GeoPoint], nearOnly: Bool = false) -> [Int] {
        let nearPointCells = Set(points.map { GridCell($0, cellMetres: configuration.nearMetres) })
        let tokenPointCells = nearOnly ? [] : Set(points.map { GridCell($0, cellMetres: configuration.cellMetres) })
        var candidates = Set<Int>()
        for point in points {
            for cell in GridCell.reach(of: point, cellMetres: configuration.nearMetres) { candidates.formUnion(nearCells[cell] ?? []) }
            guard !nearOnly else { continue }
            for cell in GridCell.reach(of: point, cellMetres: configuration.cellMetres) {
                for holders in (tokenCells[cell] ?? [:]).values { candidates.formUnion(holders) }
            }
        }
        return candidates.filter { index in
            guard let position = positions[index] else { return false }
            return GridCell.neighbourhood(of: position, cellMetres: configuration.nearMetres).contains(where: nearPointCells.contains)
                || (!nearOnly
                    && GridCell.neighbourhood(of: position, cellMetres: configuration.cellMetres).contains(where: tokenPointCells.contains))
        }.sorted()
    }

    /// The records that may have one of `targets` among their neighbours: those whose neighbourhood of near cells
    /// holds a target's cell, and those whose neighbourhood of token cells does and that hold one of the target's
    /// tokens or a typo of one (typos go both ways). A dense centre has thousands of records within a token cell's
    /// reach, few of them sharing a word.
    func records(reaching targets: [Int]) -> [Int] {
        var candidates = Set<Int>()
        var nearPointCells = Set<GridCell>()
        var tokenPointCells: [GridCell: Set<TokenID>] = [:]
        for target in targets {
            guard let point = positions[target] else { continue }
            nearPointCells.insert(GridCell(point, cellMetres: configuration.nearMetres))
            for cell in GridCell.reach(of: point, cellMetres: configuration.nearMetres) { candidates.formUnion(nearCells[cell] ?? []) }
            let words = Set(nameTokens[target].flatMap { [$0] + typos[Int($0)] })
            tokenPointCells[GridCell(point, cellMetres: configuration.cellMetres), default: []].formUnion(words)
            for cell in GridCell.reach(of: point, cellMetres: configuration.cellMetres) {
                guard let holders = tokenCells[cell] else { continue }
                for word in words { candidates.formUnion(holders[word] ?? []) }
            }
        }
        return candidates.filter { index in
            guard let position = positions[index] else { return false }
            if GridCell.neighbourhood(of: position, cellMetres: configuration.nearMetres).contains(where: nearPointCells.contains) {
                return true
            }
            return GridCell.neighbourhood(of: position, cellMetres: configuration.cellMetres).contains { cell in
                guard let words = tokenPointCells[cell] else { return false }
                return nameTokens[index].contains(where: words.contains)
            }
        }.sorted()
    }

    /// The neighbours a record proposes: in a dense block, the nearest only.
    func proposals(of index: Int) -> [Int] { proposals(of: index, among: all(of: index)) }

    /// ``proposals(of:)`` from the record's neighbours, ``all(of:)``, found already.
    func proposals(of index: Int, among neighbours: [Int]) -> [Int] {
        guard neighbours.count > configuration.maxNeighbours, let position = positions[index] else { return neighbours }
        // Ties broken by index, so that every run chooses the same.
        let nearest = Set(neighbours).map { (index: $0, metres: positions[$0].map(position.distance) ?? .infinity) }
            .sorted { ($0.metres, $0.index) < ($1.metres, $1.index) }
        return nearest.prefix(configuration.maxNeighbours).map(\.index)
    }
}
