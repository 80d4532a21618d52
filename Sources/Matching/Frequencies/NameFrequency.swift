import Locking

extension TokenStatistics {
    /// How common a name made of some tokens is.
    struct NameFrequency: Sendable, Equatable {
        /// The rarity of the records whose names have every token, cut in
        /// proportion when those records are at many places.
        var bits: Double
        /// Other hotels with such a name, by the supplier that lists the most (``distinctHotels(_:)``).
        var namesakes: Int
    }

    /// What agreeing on all these tokens together is worth.
    ///
    /// This, not the sum of the tokens' weights, is what an exact name is
    /// worth: "Novotel" and "Nation" are each common, one a brand and one a
    /// district, but "Novotel Nation" is one hotel; "Grand Hotel" at ten
    /// places is ten hotels. And when one supplier lists two hotels under
    /// the name and no other distinctive word, two hotels may have it (two
    /// Mercure Opéra, one of them usually "Mercure Opéra Bretagne"), whatever their places.
    func nameFrequency(_ tokens: [TokenID]) -> NameFrequency {
        let lists = tokens.map { holders[Int($0)] }.sorted { $0.count < $1.count }
        guard var common = lists.first else { return NameFrequency(bits: 0, namesakes: 0) }
        for list in lists.dropFirst() {
            common = Self.intersection(common, list)
            if common.isEmpty { break }
        }
        let places = Self.countPlaces(of: common, positions: positions, configuration: configuration)
        var bySupplier: [Int: [Int]] = [:]
        for record in common
        where !recordTokens[record].contains(where: { !tokens.contains($0) && rarity[Int($0)] >= configuration.distinctiveBits }) {
            bySupplier[suppliers[record], default: []].append(record)
        }
        let bits =
            Self.rarityBits(records: common.count, of: recordCount, configuration: configuration)
            * Self.spreadFactor(places: places, configuration: configuration)
        let hotels = bySupplier.values.map(distinctHotels).max() ?? 1
        return NameFrequency(bits: bits, namesakes: max(0, hotels - 1))
    }

    /// How many hotels some records of one supplier are: records sharing a
    /// phone or an address are one hotel listed twice, not two. A record
    /// with neither cannot show it is another hotel and is not counted.
    func distinctHotels(_ records: [Int]) -> Int {
        var hotels: [Set<String>] = []
        for record in records where !identityKeys[record].isEmpty {
            let keys = Set(identityKeys[record])
            if let hotel = hotels.firstIndex(where: { !$0.isDisjoint(with: keys) }) {
                hotels[hotel].formUnion(keys)
            } else {
                hotels.append(keys)
            }
        }
        return max(1, hotels.count)
    }

    /// Suppliers as small numbers, in order of first appearance.
    static func numbered(_ suppliers: [SupplierKey]) -> [Int] {
        var numbers: [SupplierKey: Int] = [:]
        return suppliers.map { supplier in
            if let number = numbers[supplier] { return number }
            numbers[supplier] = numbers.count
            return numbers.count - 1
        }
    }

    /// Two ascending lists' common elements. A brand's or a district's list
    /// may hold thousands of records against a landmark's few: the shorter
    /// list is then looked up in the longer one, in steps that grow.
    static func intersection(_ a: [Int], _ b: [Int]) -> [Int] {
        let (short, long) = a.count <= b.count ? (a, b) : (b, a)
        var result: [Int] = []
        var low = 0
        for value in short {
            // Gallop: the first index from `low` whose element is not below `value`.
            var step = 1
            var high = low
            while high < long.count, long[high] < value {
                low = high + 1
                high += step
                step *= 2
            }
            high = min(high, long.count)
            while low < high {
                let middle = (low + high) / 2
                if long[middle] < value { low = middle + 1 } else { high = middle }
            }
            guard low < long.count else { break }
            if long[low] == value { result.append(value) }
        }
        return result
    }
}

/// Each set of agreeing name tokens' ``TokenStatistics/NameFrequency``,
/// computed once: every pair of a hotel's records agrees on the same
/// tokens, and a common name's records take long to count.
final class NameFrequencyCache: Sendable {
    private let known = Locked<[[TokenID]: TokenStatistics.NameFrequency]>([:])

    /// The same as `statistics.nameFrequency(tokens)`, which does not depend on the tokens' order.
    func frequency(of tokens: [TokenID], in statistics: TokenStatistics) -> TokenStatistics.NameFrequency {
        let key = tokens.sorted()
        if let frequency = known.withLock({ $0[key] }) { return frequency }
        let frequency = statistics.nameFrequency(key)
        known.withLock { $0[key] = frequency }
        return frequency
    }
}
