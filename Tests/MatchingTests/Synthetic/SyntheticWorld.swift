import Hotels
import Matching
import SupplierWorlds

/// The matching tests' world (``SupplierWorld``, Paris alone, one stream) as match records, with the truth: which records are one hotel.
struct SyntheticWorld {
    var world: SupplierWorld
    var records: [MatchRecord]
    /// Each record's true hotel.
    var truth: [RecordKey: Int]

    /// Each supplier lists a hotel with probability `coverage`, and lists
    /// about 1.5 % of its hotels twice under two codes.
    init(hotels: Int, suppliers: Int, seed: UInt64, coverage: Double = 0.7, radiusMetres: Double = 4_500) {
        world = SupplierWorld(
            .matchingTests(hotels: hotels, seed: seed, coverage: coverage, radiusMetres: radiusMetres),
            suppliers: 1...max(1, suppliers))
        records = []
        truth = [:]
        for record in world.records {
            let matchRecord = MatchRecord(hotel: record.hotel, source: Fixtures.source(supplier: record.supplier))
            records.append(matchRecord)
            truth[matchRecord.key] = record.hotelID
        }
    }

    /// Pairwise precision and recall of a clustering against the truth.
    func quality(of result: Clustering) -> PairwiseQuality {
        var predicted = Set<RecordPair>()
        for property in result.properties {
            for (position, a) in property.members.enumerated() {
                for b in property.members[(position + 1)...] { if let pair = RecordPair(a, b) { predicted.insert(pair) } }
            }
        }
        var byHotel: [Int: [RecordKey]] = [:]
        for (key, hotel) in truth { byHotel[hotel, default: []].append(key) }
        var actual = Set<RecordPair>()
        for keys in byHotel.values {
            for (position, a) in keys.enumerated() {
                for b in keys[(position + 1)...] { if let pair = RecordPair(a, b) { actual.insert(pair) } }
            }
        }
        return PairwiseQuality(
            falsePositives: predicted.subtracting(actual).sorted(),
            falseNegatives: actual.subtracting(predicted).sorted(),
            truePositives: predicted.intersection(actual).count
        )
    }
}

struct PairwiseQuality {
    var falsePositives: [RecordPair]
    var falseNegatives: [RecordPair]
    var truePositives: Int

    var precision: Double {
        let predicted = truePositives + falsePositives.count
        return predicted == 0 ? 1 : Double(truePositives) / Double(predicted)
    }

    var recall: Double {
        let actual = truePositives + falseNegatives.count
        return actual == 0 ? 1 : Double(truePositives) / Double(actual)
    }

    var f1: Double { precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall) }
}
