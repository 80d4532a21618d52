/// The records whose candidate pairs or scores may differ from a previous run's, when the scope's
/// size stayed within one step of its weights: every other pair is found and scored as it was.
///
/// A pair's candidacy and score depend on its two records, on the name tokens' counts and places, on
/// the tokens one typo apart, on the records near each of them (a dense block keeps only the nearest),
/// and on the groups of one phone, catalogue code or pair of tokens (a group over the cap pairs none).
/// So the region is:
/// - the records that changed, came or went (their fields as compared differ);
/// - the records holding a token that a changed record holds or held: its counts and places moved,
///   and with them the weight of agreeing on it and of names made of it;
/// - when such a token became distinctive or stopped being, the records holding any token of its holders:
///   how many hotels share a name counts the holders without another distinctive token;
/// - the records holding a token whose typo neighbours changed, as tokens came or went;
/// - the records with more neighbours than blocking keeps whose nearest hold a changed record, before or after;
/// - every member of a group of one phone, catalogue code or pair of tokens that one of those is or was in.
struct AffectedRegion {
    /// The new run's records whose pairs are found and scored again.
    let focus: Focus
    /// The previous run's records that are gone.
    let removed: Set<RecordKey>

    init(from old: PreparedRecords, to new: PreparedRecords, grids: (old: GridNeighbours, new: GridNeighbours), decisions: [PairDecision]) {
        let changed = new.records.indices.filter { index in
            guard let before = old.index[new.records[index].key] else { return true }
            return old.normalised[before] != new.normalised[index]
        }
        removed = Set(old.records.map(\.key).filter { new.index[$0] == nil })
        let changedBefore = changed.compactMap { old.index[new.records[$0].key] } + removed.compactMap { old.index[$0] }

        var tokens = Set<String>()
        for index in changed { tokens.formUnion(new.normalised[index].name?.tokens ?? []) }
        for index in changedBefore { tokens.formUnion(old.normalised[index].name?.tokens ?? []) }
        var region = Set(changed)
        // Whose keys of the group rules may have changed: their fields did, or their tokens' rarity (which orders
        // a name's rarest tokens). A brand's agreement moves with its places, and its thousands of holders keep their keys.
        var keyed = region
        for token in tokens {
            let (before, after) = (Self.weighs(token, old), Self.weighs(token, new))
            guard before != after else { continue }
            let holders = new.statistics.holders(of: token)
            region.formUnion(holders)
            if before?.rarityBits != after?.rarityBits { keyed.formUnion(holders) }
        }
        region.formUnion(
            Self.holdersOfNamesWhoseFrequencyMoved(
                changed.map { new.normalised[$0].name?.tokens ?? [] } + changedBefore.map { old.normalised[$0].name?.tokens ?? [] },
                from: old, to: new))
        region.formUnion(Self.namesakeHolders(of: tokens, from: old, to: new))
        region.formUnion(Self.typoHolders(from: old, to: new))
        region.formUnion(Self.crowdedRecords(near: changed, changedBefore, from: old, to: new, grids: grids))
        let before = Set(keyed.compactMap { old.index[new.records[$0].key] } + changedBefore)
        region.formUnion(Self.groupMembers(keyed: keyed, before: before, from: old, to: new))
        focus = Focus(region, count: new.records.count)
    }

    /// What a token weighs in comparisons and blocking: nil for a token no record has.
    private static func weighs(_ token: String, _ prepared: PreparedRecords) -> TokenWeight? {
        prepared.statistics.summary(for: token).map { summary in
            TokenWeight(
                rarityBits: summary.rarityBits, agreementBits: summary.agreementBits,
                isRare: summary.records <= prepared.configuration.blocking.rareTokenMaxRecords)
        }
    }

    private struct TokenWeight: Equatable {
        let rarityBits: Double
        let agreementBits: Double
        let isRare: Bool
    }

    /// The records holding every token of a name made of a changed record's tokens whose frequency
    /// (``TokenStatistics/nameFrequency(_:)``: how rare, at how many places, how many namesakes) moved.
    private static func holdersOfNamesWhoseFrequencyMoved(_ names: [[String]], from old: PreparedRecords, to new: PreparedRecords)
        -> Set<Int>
    {
        var seen = Set<[String]>()
        var holders = Set<Int>()
        for name in names {
            // A name's every set of tokens (its first twelve, which is what a name has).
            let tokens = Array(Set(name)).sorted().prefix(12)
            for mask in 1..<(1 << tokens.count) {
                let chosen = tokens.indices.filter { mask & (1 << $0) != 0 }.map { tokens[$0] }
                guard seen.insert(chosen).inserted else { continue }
                let before = frequency(of: chosen, in: old.statistics)
                let after = frequency(of: chosen, in: new.statistics)
                guard before != after else { continue }
                let lists = chosen.map { new.statistics.holders(of: $0) }.sorted { $0.count < $1.count }
                guard var common = lists.first else { continue }
                for list in lists.dropFirst() { common = TokenStatistics.intersection(common, list) }
                holders.formUnion(common)
            }
        }
        return holders
    }

    private static func frequency(of tokens: [String], in statistics: TokenStatistics) -> TokenStatistics.NameFrequency? {
        let ids = tokens.compactMap { statistics.id(of: $0) }
        return ids.count == tokens.count ? statistics.nameFrequency(ids.sorted()) : nil
    }

    /// The records with more grid neighbours than blocking keeps (``BlockingConfiguration/maxNeighbours``) whose
    /// nearest records that stayed are not the same as before: a record that came, went or moved took or left a place.
    private static func crowdedRecords(
        near changed: [Int], _ changedBefore: [Int], from old: PreparedRecords, to new: PreparedRecords,
        grids: (old: GridNeighbours, new: GridNeighbours)
    ) -> Set<Int> {
        let (grid, oldGrid) = (grids.new, grids.old)
        let points = changed.compactMap { grid.positions[$0] } + changedBefore.compactMap { oldGrid.positions[$0] }
        let changedKeys = Set(changed.map { new.records[$0].key } + changedBefore.map { old.records[$0].key })
        func stayed(_ indices: [Int], _ prepared: PreparedRecords) -> Set<RecordKey> {
            Set(indices.map { prepared.records[$0].key }).subtracting(changedKeys)
        }
        // A changed record is among a record's neighbours only when near it or when their names share a token or
        // one a typo away: only those records can have another nearest.
        var words = Set<String>()
        for index in changed { words.formUnion(new.normalised[index].name?.tokens ?? []) }
        for index in changedBefore { words.formUnion(old.normalised[index].name?.tokens ?? []) }
        let typos = new.typos
        for word in Array(words) {
            for variant in new.statistics.id(of: word).map({ typos[Int($0)] }) ?? [] { words.insert(new.statistics.strings[Int(variant)]) }
        }
        let near = Set(grid.records(near: points, nearOnly: true))
        let (changedNow, changedThen) = (Set(changed), Set(changedBefore))
        func typoWords(of token: String, in prepared: PreparedRecords) -> Set<String> {
            Set(prepared.statistics.id(of: token).map { prepared.typos[Int($0)].map { prepared.statistics.strings[Int($0)] } } ?? [])
        }
        func typosStayed(_ tokens: [String]) -> Bool { tokens.allSatisfy { typoWords(of: $0, in: new) == typoWords(of: $0, in: old) } }
        var crowded = Set<Int>()
        for index in grid.records(near: points)
        where near.contains(index) || new.normalised[index].name?.tokens.contains(where: words.contains) == true {
            let before = old.index[new.records[index].key]
            let (nowAll, thenAll) = (grid.all(of: index), before.map(oldGrid.all) ?? [])
            // Neighbours that came or went are changed records, or a typo of a token whose typos changed: without
            // either, the same records stand around it, and so do its nearest (found without sorting them).
            if before != nil, !nowAll.contains(where: changedNow.contains), !thenAll.contains(where: changedThen.contains),
                typosStayed(new.normalised[index].name?.tokens ?? [])
            {
                continue
            }
            let (now, then) = (grid.proposals(of: index, among: nowAll), before.map { oldGrid.proposals(of: $0, among: thenAll) } ?? [])
            guard now.count == new.configuration.blocking.maxNeighbours || then.count == new.configuration.blocking.maxNeighbours
            else { continue }
            if stayed(now, new) != stayed(then, old) { crowded.insert(index) }
        }
        return crowded
    }

    /// The holders of every token of a token's holders, for the tokens that became distinctive or stopped being.
    private static func namesakeHolders(of tokens: Set<String>, from old: PreparedRecords, to new: PreparedRecords) -> Set<Int> {
        let distinctive = new.configuration.frequencies.distinctiveBits
        var holders = Set<Int>()
        for token in tokens {
            guard let before = old.statistics.summary(for: token), let after = new.statistics.summary(for: token),
                (before.rarityBits >= distinctive) != (after.rarityBits >= distinctive)
            else { continue }
            for holder in new.statistics.holders(of: token) {
                for other in new.normalised[holder].name?.tokens ?? [] { holders.formUnion(new.statistics.holders(of: other)) }
            }
        }
        return holders
    }

    /// The holders of the tokens of a typo key that a token that came or went took over the cap or back under it
    /// (``CandidateBlocker/pairsTypos(_:)``). Under the cap both times, a token that came or went changes only its
    /// own typo neighbours and theirs of it, and its holders changed.
    private static func typoHolders(from old: PreparedRecords, to new: PreparedRecords) -> Set<Int> {
        let cameOrWent = Set(new.statistics.strings).symmetricDifference(old.statistics.strings)
        guard !cameOrWent.isEmpty else { return [] }
        let (groups, oldGroups) = (CandidateBlocker.typoKeyGroups(new.statistics), CandidateBlocker.typoKeyGroups(old.statistics))
        let cap = new.configuration.blocking.maxSharedKeyRecords
        var holders = Set<Int>()
        for key in Set(cameOrWent.flatMap(CandidateBlocker.typoKeys))
        where ((groups[key]?.count ?? 0) > cap) != ((oldGroups[key]?.count ?? 0) > cap) {
            for token in groups[key] ?? [] { holders.formUnion(new.statistics.holders(of: new.statistics.strings[Int(token)])) }
        }
        return holders
    }

    /// Every record of a group of one phone, catalogue code or pair of tokens that went over the cap or came
    /// back under it (a group over the cap pairs none of its records), among the groups that the records of
    /// `keyed` (whose keys may have changed) are in, or whose previous versions were in.
    private static func groupMembers(keyed: Set<Int>, before: Set<Int>, from old: PreparedRecords, to new: PreparedRecords) -> Set<Int> {
        let cap = new.configuration.blocking.maxSharedKeyRecords
        var members = Set<Int>()
        // Only the groups of the keys these records have, or had, are built: one pass over each run's records.
        func add<Key: Hashable>(_ keysOf: (Normalised) -> [Key]) {
            let touched = Set(keyed.flatMap { keysOf(new.normalised[$0]) } + before.flatMap { keysOf(old.normalised[$0]) })
            guard !touched.isEmpty else { return }
            func groups(in prepared: PreparedRecords) -> [Key: [Int]] {
                var groups: [Key: [Int]] = [:]
                for (index, record) in prepared.normalised.enumerated() {
                    for key in keysOf(record) where touched.contains(key) { groups[key, default: []].append(index) }
                }
                return groups
            }
            let (groups, oldGroups) = (groups(in: new), groups(in: old))
            for key in touched where ((groups[key]?.count ?? 0) > cap) != ((oldGroups[key]?.count ?? 0) > cap) {
                members.formUnion(groups[key] ?? [])
            }
        }
        add(CandidateBlocker.phoneKeys(of:))
        add(CandidateBlocker.referenceKeys(of:))
        // Groups of a pair of tokens, by their texts in text order and city (the two runs number them differently), found from the
        // records holding both tokens: only the keys of records whose keys may have changed are looked at.
        struct TokenPairKey: Hashable {
            let city: String
            let first: String
            let second: String
        }
        func keys(of index: Int, in prepared: PreparedRecords) -> [TokenPairKey] {
            prepared.blocker.tokenPairKeys(prepared.scorer.nameTokens[index], statistics: prepared.statistics).map { key in
                let (a, b) = (prepared.statistics.strings[Int(key.0)], prepared.statistics.strings[Int(key.1)])
                return TokenPairKey(city: prepared.normalised[index].cityKey, first: min(a, b), second: max(a, b))
            }
        }
        /// The key's records, the first `limit` of them: whether a group is over the cap needs no more.
        func group(_ key: TokenPairKey, in prepared: PreparedRecords, limit: Int = .max) -> [Int] {
            let both = TokenStatistics.intersection(prepared.statistics.holders(of: key.first), prepared.statistics.holders(of: key.second))
            return Array(
                both.lazy.filter { prepared.normalised[$0].cityKey == key.city && keys(of: $0, in: prepared).contains(key) }.prefix(limit))
        }
        let touched = Set(keyed.flatMap { keys(of: $0, in: new) } + before.flatMap { keys(of: $0, in: old) })
        // A brand's pairs of tokens are held by thousands, over the cap in both runs: counted to one past the cap only.
        for key in touched where (group(key, in: new, limit: cap + 1).count > cap) != (group(key, in: old, limit: cap + 1).count > cap) {
            members.formUnion(group(key, in: new))
        }
        return members
    }
}
