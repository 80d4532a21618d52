/// One kind of evidence two records are, or are not, the same hotel.
public enum Signal: String, Sendable, Hashable, Codable, CaseIterable, CodingKeyRepresentable {
    /// Codes in mapping catalogues such as GIATA.
    case reference
    case name
    /// House number and street.
    case address
    case postalCode
    case phone
    /// Haversine distance between the cleaned positions.
    case distance
    case chain
    case rating
    /// The logos' perceptual hashes: the same picture, or a brand's.
    case logo
    /// Whether one supplier lists both records: suppliers seldom list a hotel twice.
    case supplier
}

/// How far two records agree on one signal. Each signal uses some of these
/// levels (``MatchModel/rules`` lists which); ``missing`` is every signal's
/// level when either record lacks the value, and is worth nothing.
public enum AgreementLevel: String, Sendable, Hashable, Codable, CaseIterable, CodingKeyRepresentable {
    case missing
    /// The same value (for a name: every distinctive token agrees).
    case exact
    /// Name: one name's distinctive tokens all in the other, which has more.
    case contained
    /// Name: a distinctive token shared, and each name has its own as well.
    case partial
    /// Name: only common words or brands shared; logo: the same brand's logo.
    case weak
    /// Address: the same street, a house number on one side only.
    case sameStreet
    /// Address: the same street, other house numbers.
    case numberDiffers
    /// Phone: the same number but for the last two digits: one switchboard.
    case sameSwitchboard
    /// Distance up to 150 m.
    case veryClose
    /// Distance up to 400 m; rating: one star apart.
    case close
    /// Distance up to 1 km.
    case near
    /// Distance up to 5 km.
    case far
    /// Distance beyond 5 km.
    case veryFar
    /// References: one catalogue agrees and another disagrees.
    case conflicting
    case different
}

/// What a pair's score says, by ``DecisionThresholds``.
public enum MatchDecision: String, Sendable, Hashable, Codable, CaseIterable {
    case match
    case review
    case noMatch
}
