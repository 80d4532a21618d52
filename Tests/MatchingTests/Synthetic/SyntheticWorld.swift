import Hotels
import Matching
import Seeding

/// A city's hotels as several suppliers list them, with the truth: which records are one hotel.
struct SyntheticWorld {
    var city: SyntheticCity
    var records: [MatchRecord]
    /// Each record's true hotel.
    var truth: [RecordKey: Int]

    /// Each supplier lists a hotel with probability `coverage`, and lists
    /// about 1.5 % of its hotels twice under two codes.
    init(hotels: Int, suppliers: Int, seed: UInt64, coverage: Double = 0.7, radiusMetres: Double = 4_500) {
        var random = SeededGenerator(seed: seed)
        city = SyntheticCity(hotels: hotels, radiusMetres: radiusMetres, random: &random)
        let allGiata = city.hotels.map(\.giata)
        records = []
        truth = [:]
        for supplier in 1...max(1, suppliers) {
            let style = SupplierStyle(number: supplier)
            var serial = 0
            for hotel in city.hotels where Double.random(in: 0..<1, using: &random) < coverage {
                let copies = Double.random(in: 0..<1, using: &random) < 0.015 ? 2 : 1
                for _ in 0..<copies {
                    serial += 1
                    let code = "S\(supplier)-\(String(serial * 13 + supplier))"
                    let position = style.position(hotel, random: &random)
                    let record = Hotel(
                        code: code, name: style.name(hotel, random: &random), address: style.address(hotel, random: &random),
                        latitude: position?.0, longitude: position?.1,
                        logoURL: Double.random(in: 0..<1, using: &random) < 0.5 ? "https://img.example/\(code).jpg" : nil,
                        phone: style.phone(hotel, random: &random), chainCode: style.chainCode(hotel),
                        rating: style.rating(hotel, random: &random), postalCode: style.postalCode(hotel, random: &random),
                        city: "Paris", countryCode: "FR", references: style.references(hotel, allGiata: allGiata, random: &random)
                    )
                    let matchRecord = MatchRecord(hotel: record, source: Fixtures.source(supplier: supplier))
                    records.append(matchRecord)
                    truth[matchRecord.key] = hotel.id
                }
            }
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
