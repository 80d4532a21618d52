/// Which rule proposed a candidate pair.
public enum BlockingRule: String, Sendable, Hashable, Codable, CaseIterable, CodingKeyRepresentable {
    /// Positions in the same or a neighbouring grid cell.
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
    /// Record indices, `first < second`, in order.
    let pairs: [(first: Int, second: Int)]
    /// Pairs each rule proposed, before pairs proposed by several rules were counted once.
    public let proposedBy: [BlockingRule: Int]
    public let recordCount: Int

    public var count: Int { pairs.count }

    /// Pairs per record: each pair counts for both its records.
    public var perRecord: Double { recordCount == 0 ? 0 : 2 * Double(pairs.count) / Double(recordCount) }
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
        var byRule: [BlockingRule: Set<UInt64>] = [:]
        byRule[.grid] = gridPairs(records)
        byRule[.rareNameToken] = rareTokenPairs(records, nameTokens: nameTokens, statistics: statistics)
        byRule[.nameTokenPair] = sharedKeyPairs(nameTokens.indices.map { index in
            tokenPairKeys(nameTokens[index], statistics: statistics).map { "\(records[index].cityKey)\u{1F}\($0)" }
        })
        byRule[.phone] = sharedKeyPairs(records.map { record in record.phone.map { [RecordNormaliser.phoneKey($0)] } ?? [] })
        byRule[.reference] = sharedKeyPairs(records.map { record in record.references.map { "\($0.key)\u{1F}\($0.value)" } })

        let found = byRule.values.reduce(into: Set<UInt64>()) { $0.formUnion($1) }
        let pairs = found.sorted().map { (first: Int($0 >> 32), second: Int($0 & 0xFFFF_FFFF)) }
        return CandidatePairs(pairs: pairs, proposedBy: byRule.mapValues(\.count), recordCount: records.count)
    }

    /// A pair of record indices as one number, the smaller index first.
    private static func pairKey(_ a: Int, _ b: Int) -> UInt64 {
        a < b ? UInt64(a) << 32 | UInt64(b) : UInt64(b) << 32 | UInt64(a)
    }

    private func gridPairs(_ records: [Normalised]) -> Set<UInt64> {
        var cells: [GridCell: [Int]] = [:]
        for (index, record) in records.enumerated() {
            if let position = record.position { cells[GridCell(position, cellMetres: configuration.cellMetres), default: []].append(index) }
        }
        var pairs = Set<UInt64>()
        for (index, record) in records.enumerated() {
            guard let position = record.position else { continue }
            var neighbours = GridCell.neighbourhood(of: position, cellMetres: configuration.cellMetres)
                .flatMap { cells[$0] ?? [] }
                .filter { $0 != index }
            if neighbours.count > configuration.maxNeighbours {
                // A dense block: the nearest only, ties broken by index so that every run chooses the same.
                let distances = neighbours.map { (index: $0, metres: records[$0].position.map(position.distance) ?? .infinity) }
                neighbours = distances.sorted { ($0.metres, $0.index) < ($1.metres, $1.index) }
                    .prefix(configuration.maxNeighbours).map(\.index)
            }
            for neighbour in neighbours { pairs.insert(Self.pairKey(index, neighbour)) }
        }
        return pairs
    }

    private func rareTokenPairs(_ records: [Normalised], nameTokens: [[TokenID]], statistics: TokenStatistics) -> Set<UInt64> {
        var groups: [String: [Int]] = [:]
        for (index, tokens) in nameTokens.enumerated() {
            for token in tokens where statistics.records[Int(token)] <= configuration.rareTokenMaxRecords {
                groups["\(records[index].cityKey)\u{1F}\(token)", default: []].append(index)
            }
        }
        var pairs = Set<UInt64>()
        for group in groups.values { addAllPairs(group, to: &pairs) }
        return pairs
    }

    /// Keys for each pair of the name's three rarest tokens (fewest records, then alphabetical).
    private func tokenPairKeys(_ tokens: [TokenID], statistics: TokenStatistics) -> [String] {
        guard tokens.count > 1 else { return [] }
        let rarest = tokens.sorted { a, b in
            let (recordsA, recordsB) = (statistics.records[Int(a)], statistics.records[Int(b)])
            return recordsA != recordsB ? recordsA < recordsB : statistics.strings[Int(a)] < statistics.strings[Int(b)]
        }.prefix(3).map { statistics.strings[Int($0)] }.sorted()
        var keys: [String] = []
        for (position, first) in rarest.enumerated() {
            for second in rarest[(position + 1)...] { keys.append("\(first) \(second)") }
        }
        return keys
    }

    private func sharedKeyPairs(_ keys: [[String]]) -> Set<UInt64> {
        var groups: [String: [Int]] = [:]
        for (index, recordKeys) in keys.enumerated() {
            for key in recordKeys { groups[key, default: []].append(index) }
        }
        var pairs = Set<UInt64>()
        for group in groups.values where group.count <= configuration.maxSharedKeyRecords { addAllPairs(group, to: &pairs) }
        return pairs
    }

    private func addAllPairs(_ group: [Int], to pairs: inout Set<UInt64>) {
        guard group.count > 1 else { return }
        for a in group.indices {
            for b in group.indices where b > a { pairs.insert(Self.pairKey(group[a], group[b])) }
        }
    }
}
