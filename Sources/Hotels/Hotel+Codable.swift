import Foundation

/// A hotel as JSON: the keys and values ``HotelJSONLines`` writes, by the
/// field table. Added fields are written with their keys; reading them back
/// needs their table, so decoding reads the built-in fields only.
extension Hotel: Codable {
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(code: try container.decode(String.self, forKey: Key(stringValue: HotelField.code.rawValue)))
        for spec in HotelFields.all.dropFirst() {
            let key = Key(stringValue: spec.jsonKey)
            let value: HotelFieldSpec.Value? =
                switch spec.type {
                case .text: try container.decodeIfPresent(String.self, forKey: key).map(HotelFieldSpec.Value.text)
                case .real: try container.decodeIfPresent(Double.self, forKey: key).map(HotelFieldSpec.Value.real)
                case .integer: try container.decodeIfPresent(Int64.self, forKey: key).map(HotelFieldSpec.Value.integer)
                case .references: try container.decodeIfPresent([String: String].self, forKey: key).map(HotelFieldSpec.Value.references)
                }
            spec.assign(&self, value ?? .null)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        let values = HotelFields.all.map { ($0.jsonKey, $0.value(self)) } + (extensions ?? []).map { ($0.key, $0.value) }
        for (key, value) in values {
            let key = Key(stringValue: key)
            switch value {
            case .null: try container.encodeNil(forKey: key)
            case .text(let text): try container.encode(text, forKey: key)
            case .real(let number): try container.encode(number, forKey: key)
            case .integer(let number): try container.encode(number, forKey: key)
            case .references(let references): try container.encode(references, forKey: key)
            }
        }
    }
}
