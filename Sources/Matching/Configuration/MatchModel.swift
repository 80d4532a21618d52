import Foundation

/// The m and u probabilities of one agreement level, Fellegi–Sunter style.
///
/// Both are taken among *candidate* pairs, the pairs blocking lets through:
/// most of those are near each other, so for the location signals u is far
/// higher than it would be among random pairs of a city.
public struct LevelProbabilities: Sendable, Hashable, Codable {
    /// How often a pair of records of the same hotel shows this level.
    public var m: Double
    /// How often a pair of records of different hotels shows it.
    public var u: Double

    public init(m: Double, u: Double) {
        self.m = m
        self.u = u
    }

    /// The level's weight: log₂ of the Bayes factor m / u, in bits. Zero when either is not positive.
    public var weight: Double {
        guard m > 0, u > 0 else { return 0 }
        return log2(m / u)
    }
}

/// One signal's levels and what each is worth.
public struct SignalModel: Sendable, Hashable, Codable {
    /// Every level the signal's comparison can give, but ``AgreementLevel/missing``.
    public var levels: [AgreementLevel: LevelProbabilities]

    public init(_ levels: [AgreementLevel: LevelProbabilities]) {
        self.levels = levels
    }

    /// The level's weight; 0 for a level not in the model, such as ``AgreementLevel/missing``.
    public func weight(for level: AgreementLevel) -> Double {
        levels[level]?.weight ?? 0
    }
}

/// What every signal's agreement levels are worth: the Fellegi–Sunter model.
///
/// The default, ``rules``, is set by hand. Its shape, m and u per level, is
/// what an EM estimate over candidate pairs produces, so an estimated model
/// can replace it without touching the comparisons or the scorer.
public struct MatchModel: Sendable, Hashable, Codable {
    public var signals: [Signal: SignalModel]
    /// The name's ``AgreementLevel/exact`` level is adjusted by term
    /// frequency: its u is the chance that another record carries every
    /// agreeing token, 2^−(their bits), kept within these bounds. Two records
    /// called "Grand Hotel" are then worth less than two called "Le Bristol".
    public var nameExactUBounds: UBounds
    /// Each other hotel with the same name (``TokenStatistics``) raises the
    /// name's exact u by this much at least: among a record's candidates,
    /// the chance of meeting a namesake's record.
    public var nameExactUPerNamesake: Double

    /// The bounds of a term-frequency adjusted u.
    public struct UBounds: Sendable, Hashable, Codable {
        public var lowest: Double
        public var highest: Double

        public init(lowest: Double, highest: Double) {
            self.lowest = min(lowest, highest)
            self.highest = max(lowest, highest)
        }

        public func clamp(_ u: Double) -> Double { min(max(u, lowest), highest) }
    }

    public init(signals: [Signal: SignalModel], nameExactUBounds: UBounds, nameExactUPerNamesake: Double) {
        self.signals = signals
        self.nameExactUBounds = nameExactUBounds
        self.nameExactUPerNamesake = nameExactUPerNamesake
    }

    /// A level's probabilities, or nil when the signal has no such level.
    public func probabilities(_ signal: Signal, _ level: AgreementLevel) -> LevelProbabilities? {
        signals[signal]?.levels[level]
    }

    /// A level's weight in bits; 0 for ``AgreementLevel/missing`` and for levels the model lacks.
    public func weight(_ signal: Signal, _ level: AgreementLevel) -> Double {
        signals[signal]?.weight(for: level) ?? 0
    }

    /// The name's exact level with its u adjusted for how common the
    /// agreeing tokens are together, and for other hotels of that name.
    public func nameExactProbabilities(agreeingBits: Double, namesakes: Int) -> LevelProbabilities? {
        guard var probabilities = probabilities(.name, .exact) else { return nil }
        probabilities.u = nameExactUBounds.clamp(max(exp2(-max(0, agreeingBits)), Double(max(0, namesakes)) * nameExactUPerNamesake))
        return probabilities
    }
}
