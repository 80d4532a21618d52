/// Every signal's level weights in one flat array: scoring a pair reads
/// numbers by position instead of looking up two dictionaries per signal.
/// The weights are the model's own (``MatchModel/weight(_:_:)``); the
/// name's exact level, adjusted per pair, is not in the table.
struct WeightTable: Sendable {
    private let weights: [Double]

    init(_ model: MatchModel) {
        weights = Signal.allCases.flatMap { signal in AgreementLevel.allCases.map { model.weight(signal, $0) } }
    }

    subscript(signal: Signal, level: AgreementLevel) -> Double {
        weights[signal.ordinal * AgreementLevel.allCases.count + level.ordinal]
    }
}

extension Signal {
    /// The position in ``allCases``.
    var ordinal: Int {
        switch self {
        case .reference: 0
        case .name: 1
        case .address: 2
        case .postalCode: 3
        case .phone: 4
        case .distance: 5
        case .chain: 6
        case .rating: 7
        case .logo: 8
        case .supplier: 9
        }
    }
}

extension AgreementLevel {
    /// The position in ``allCases``.
    var ordinal: Int {
        switch self {
        case .missing: 0
        case .exact: 1
        case .contained: 2
        case .partial: 3
        case .weak: 4
        case .sameStreet: 5
        case .numberDiffers: 6
        case .sameSwitchboard: 7
        case .veryClose: 8
        case .close: 9
        case .near: 10
        case .far: 11
        case .veryFar: 12
        case .conflicting: 13
        case .different: 14
        }
    }
}
