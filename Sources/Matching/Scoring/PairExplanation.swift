import Foundation

/// One signal's part in a pair's score: both values, the level, the weight.
public struct SignalComparison: Sendable, Hashable, Codable {
    public var signal: Signal
    /// The first record's value as compared (after normalisation); nil when it has none.
    public var first: String?
    public var second: String?
    public var level: AgreementLevel
    /// The m and u the weight came from; nil for a level the model gives no weight.
    public var probabilities: LevelProbabilities?
    /// log₂(m / u), in bits; 0 when a value is missing.
    public var weight: Double
    /// What the level was read from: the tokens that agree, the distance in metres.
    public var detail: String?
}

/// Why a pair scores what it does: every signal's values, level and weight,
/// their sum, and the decision the thresholds make of it. What
/// `hotels match explain` prints, as a waterfall from 0 to the score.
public struct PairExplanation: Sendable, Hashable, Codable {
    public var pair: RecordPair
    /// In ``Signal`` order.
    public var signals: [SignalComparison]
    /// The sum of the weights, in bits.
    public var score: Double
    public var decision: MatchDecision
    public var thresholds: DecisionThresholds

    /// The comparison of one signal.
    public subscript(signal: Signal) -> SignalComparison? {
        signals.first { $0.signal == signal }
    }
}

extension PairExplanation: CustomStringConvertible {
    /// A table: one line per signal with the running total, then the decision.
    public var description: String {
        var lines = ["\(pair.first)  ~  \(pair.second)"]
        var total = 0.0
        for signal in signals {
            total += signal.weight
            let values = "\(signal.first ?? "–")  |  \(signal.second ?? "–")"
            let detail = signal.detail.map { "  (\($0))" } ?? ""
            lines.append(
                pad(signal.signal.rawValue, 11) + pad(signal.level.rawValue, 16)
                    + String(format: "%+6.2f → %6.2f  ", signal.weight, total) + values + detail)
        }
        lines.append(
            "score \(String(format: "%.2f", score)) bits: \(decision.rawValue) "
                + "(match at \(String(format: "%.1f", thresholds.matchAtLeast)), review at \(String(format: "%.1f", thresholds.reviewAtLeast)))"
        )
        return lines.joined(separator: "\n")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

extension PairScorer {
    /// The explanation of a pair the scorer has compared.
    func explain(_ i: Int, _ j: Int, pair: RecordPair, thresholds: DecisionThresholds) -> PairExplanation {
        let comparison = compare(i, j)
        let (a, b) = (records[i], records[j])
        let signals = Signal.allCases.map { signal -> SignalComparison in
            let values = self.values(signal, a, b)
            let probabilities = self.probabilities(signal, comparison)
            return SignalComparison(
                signal: signal, first: values.0, second: values.1, level: comparison.level(signal),
                probabilities: probabilities, weight: probabilities?.weight ?? 0,
                detail: detail(signal, comparison, a, b))
        }
        let score = signals.reduce(0) { $0 + $1.weight }
        return PairExplanation(
            pair: pair, signals: signals, score: score, decision: thresholds.decision(for: score), thresholds: thresholds)
    }

    private func values(_ signal: Signal, _ a: Normalised, _ b: Normalised) -> (String?, String?) {
        switch signal {
        case .reference:
            func text(_ references: [String: String]) -> String? {
                references.isEmpty ? nil : references.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            }
            return (text(a.references), text(b.references))
        case .name: return (a.name?.display, b.name?.display)
        case .address: return (a.address?.display, b.address?.display)
        case .postalCode: return (a.postalCode, b.postalCode)
        case .phone: return (a.phone?.digits, b.phone?.digits)
        case .distance:
            func text(_ record: Normalised) -> String? {
                record.position.map { record.positionNote == .asGiven ? $0.description : "\($0) (\(record.positionNote.rawValue))" }
                    ?? (record.positionNote == .absent ? nil : "dropped: \(record.positionNote.rawValue)")
            }
            return (text(a), text(b))
        case .chain: return (a.chainCode, b.chainCode)
        case .rating: return (a.rating.map { String($0) }, b.rating.map { String($0) })
        case .logo: return (a.logo?.description, b.logo?.description)
        case .supplier: return (a.supplier.profile, b.supplier.profile)
        }
    }

    private func detail(_ signal: Signal, _ comparison: PairComparison, _ a: Normalised, _ b: Normalised) -> String? {
        switch signal {
        case .name:
            guard comparison.name.level != .missing else { return nil }
            func words(_ tokens: [TokenID]) -> String { tokens.map { statistics.strings[Int($0)] }.joined(separator: " ") }
            var parts = ["agreeing: \(words(comparison.name.agreeing))"]
            if !comparison.name.onlyFirst.isEmpty { parts.append("first only: \(words(comparison.name.onlyFirst))") }
            if !comparison.name.onlySecond.isEmpty { parts.append("second only: \(words(comparison.name.onlySecond))") }
            parts.append(String(format: "%.1f bits agreeing", comparison.name.agreeingBits))
            if comparison.name.level == .exact {
                parts.append(String(format: "%.1f bits together", comparison.name.frequency.bits))
                if comparison.name.frequency.namesakes > 0 { parts.append("\(comparison.name.frequency.namesakes) other hotels so named") }
            }
            parts.append(String(format: "similarity %.2f", comparison.name.similarity))
            return parts.joined(separator: "; ")
        case .address:
            guard comparison.address != .missing, let first = a.address, let second = b.address else { return nil }
            return "number \(first.houseNumber ?? "–") / \(second.houseNumber ?? "–"), street \(first.streetTokens.joined(separator: " "))"
                + " / \(second.streetTokens.joined(separator: " ")), similarity \(String(format: "%.2f", comparison.streetSimilarity))"
        case .distance:
            return comparison.metres.map { String(format: "%.0f m", $0) }
        case .logo:
            guard let bits = comparison.logoBits else { return nil }
            let brand = comparison.logo == .weak ? "; a brand's logo: one supplier shows it for several of its hotels" : ""
            return "\(bits) of 64 bits differ\(brand)"
        case .reference where comparison.reference == .conflicting && FieldComparisons.references(a.references, b.references) == .exact:
            return "the same code, but the names and phones disagree: a mapping mistake, most likely"
        default:
            return nil
        }
    }
}
