extension MatchModel {
    /// The model set by rules, before any estimate from data.
    ///
    /// The weights (log₂ m/u) it gives, in bits, and why:
    ///
    /// | signal | levels |
    /// |---|---|
    /// | reference | exact +20, conflicting +3.3, different −10 |
    /// | name | exact +3.3…+8.6 (by how rare the name is, less with namesakes), contained 0, partial −2, weak −3.3, different −3.8 |
    /// | address | exact +2.8, sameStreet +1, numberDiffers −1, different −2.9 |
    /// | postalCode | exact +1, different −2.5 |
    /// | phone | exact +10.7, sameSwitchboard 0, different −3 |
    /// | distance | veryClose +2.5, close +1.2, near −1.4, far −2.9, veryFar −4.3 |
    /// | chain | exact +1, different −2.2 |
    /// | rating | exact +1, close −0.7, different −2.3 |
    /// | logo | exact +5.9, weak (a brand's) 0, different −1.4 |
    /// | supplier | exact (one supplier) −3.6, different +0.4 |
    ///
    /// Location is said three times, by the address, the postal code and the
    /// distance, and a building can hold several hotels (sibling brands, a
    /// complex): together they are worth at most about 6 bits, less than the
    /// match threshold, so location alone never makes a match; a name that
    /// agrees, or a phone, must add to it. For the same reason a name that
    /// holds the other and more ("Ibis" in "Ibis Styles") is neutral: same
    /// family, not proof of the same hotel. The phone is nearly an identifier,
    /// but a hotel's two suppliers may give two of its lines, so disagreeing
    /// costs only 3 bits. A catalogue code is an identifier: decisive when it
    /// agrees, and strong evidence against when the same catalogue gives two.
    /// A supplier seldom lists one hotel twice, so two of its records that
    /// look alike are more likely two hotels of one name than one hotel:
    /// strong evidence still joins them. The same logo is strong evidence
    /// unless it is a brand's (one supplier shows it for several hotels);
    /// two suppliers often send two pictures of one hotel, so different
    /// logos cost little.
    public static let rules = MatchModel(
        signals: [
            .reference: SignalModel([
                .exact: LevelProbabilities(m: 0.989, u: 0.000_001),
                .conflicting: LevelProbabilities(m: 0.010, u: 0.001),
                .different: LevelProbabilities(m: 0.001, u: 0.998_999),
            ]),
            .name: SignalModel([
                // u is replaced by the agreeing tokens' frequency (nameExactUBounds).
                .exact: LevelProbabilities(m: 0.80, u: 0.01),
                .contained: LevelProbabilities(m: 0.10, u: 0.10),
                .partial: LevelProbabilities(m: 0.04, u: 0.16),
                .weak: LevelProbabilities(m: 0.03, u: 0.30),
                // A supplier may still list a hotel under an old name or another script.
                .different: LevelProbabilities(m: 0.03, u: 0.43),
            ]),
            .address: SignalModel([
                .exact: LevelProbabilities(m: 0.70, u: 0.10),
                .sameStreet: LevelProbabilities(m: 0.15, u: 0.075),
                .numberDiffers: LevelProbabilities(m: 0.05, u: 0.10),
                // A corner hotel may be listed on either street.
                .different: LevelProbabilities(m: 0.10, u: 0.725),
            ]),
            .postalCode: SignalModel([
                .exact: LevelProbabilities(m: 0.90, u: 0.45),
                .different: LevelProbabilities(m: 0.10, u: 0.55),
            ]),
            .phone: SignalModel([
                .exact: LevelProbabilities(m: 0.85, u: 0.000_5),
                // A hotel's reservations line beside its reception, or two hotels of one switchboard.
                .sameSwitchboard: LevelProbabilities(m: 0.03, u: 0.03),
                .different: LevelProbabilities(m: 0.12, u: 0.969_5),
            ]),
            .distance: SignalModel([
                .veryClose: LevelProbabilities(m: 0.50, u: 0.09),
                .close: LevelProbabilities(m: 0.35, u: 0.15),
                .near: LevelProbabilities(m: 0.10, u: 0.26),
                .far: LevelProbabilities(m: 0.04, u: 0.30),
                // Positions more than 50 km out are dropped before this; what is left is mostly right.
                .veryFar: LevelProbabilities(m: 0.01, u: 0.20),
            ]),
            .chain: SignalModel([
                .exact: LevelProbabilities(m: 0.90, u: 0.45),
                // Suppliers' chain codes do not all come from one list.
                .different: LevelProbabilities(m: 0.15, u: 0.70),
            ]),
            .rating: SignalModel([
                .exact: LevelProbabilities(m: 0.70, u: 0.35),
                .close: LevelProbabilities(m: 0.25, u: 0.40),
                .different: LevelProbabilities(m: 0.05, u: 0.25),
            ]),
            .logo: SignalModel([
                .exact: LevelProbabilities(m: 0.60, u: 0.01),
                // The brand's logo says what the chain code and the name already say.
                .weak: LevelProbabilities(m: 0.05, u: 0.05),
                .different: LevelProbabilities(m: 0.35, u: 0.94),
            ]),
            // Among four or five suppliers, about a quarter of candidate pairs are one supplier's;
            // of the pairs of one hotel, about 2 in 100.
            .supplier: SignalModel([
                .exact: LevelProbabilities(m: 0.02, u: 0.25),
                .different: LevelProbabilities(m: 0.98, u: 0.75),
            ]),
        ],
        // At most 8 %: a name of one common word agreeing is worth +3.3 bits;
        // at least 1 in 500: several rare tokens agreeing are worth +8.6 bits
        // and no more, since one name can still be two hotels in two districts.
        nameExactUBounds: UBounds(lowest: 0.002, highest: 0.08),
        // A record meets about a hundred others, some thirty hotels; a namesake nearby is one of them.
        nameExactUPerNamesake: 0.03
    )
}
