import Hotels
import Matching
import Testing

/// The hard cases of issue 47, each by name.
@Suite struct HardCaseTests {
    let matcher = Matcher()

    @Test func siblingBrandsInOneBuildingAreTwoProperties() throws {
        let address = "33 Rue de Dunkerque"
        let records = [
            Fixtures.record(
                1, "IB1", name: "Ibis Paris Gare du Nord", address: address, at: (48.88060, 2.35390),
                phone: "+33 1 42 85 20 00", postalCode: "75010", chain: "RT"),
            Fixtures.record(
                2, "IB2", name: "IBIS PARIS GARE DU NORD", address: "33 R. DE DUNKERQUE 75010 PARIS", at: (48.88071, 2.35410),
                phone: "01 42 85 20 00", chain: "RT"),
            Fixtures.record(
                1, "IS1", name: "Ibis Styles Paris Gare du Nord", address: address, at: (48.88062, 2.35395),
                phone: "+33 1 53 20 30 00", postalCode: "75010", chain: "RT"),
            Fixtures.record(
                2, "IS2", name: "IBIS STYLES - PARIS GARE DU NORD", address: "33 R. DE DUNKERQUE 75010 PARIS",
                at: (48.88049, 2.35402), phone: "01 53 20 30 00", chain: "RT"),
        ]
        let result = matcher.match(records)
        #expect(result.together(Fixtures.key(1, "IB1"), Fixtures.key(2, "IB2")))
        #expect(result.together(Fixtures.key(1, "IS1"), Fixtures.key(2, "IS2")))
        #expect(!result.together(Fixtures.key(1, "IB1"), Fixtures.key(1, "IS1")))
        #expect(result.properties.count == 2)
        let explanation = try Fixtures.explain(matcher.prepare(records), Fixtures.key(1, "IB1"), Fixtures.key(1, "IS1"))
        #expect(explanation[.name]?.level == .contained)
        #expect(explanation.decision != .match)
    }

    @Test func twoHotelsOfOneComplexSharingAnAddressAndSwitchboard() throws {
        let address = "19 Rue du Commandant René Mouchotte"
        let records = [
            Fixtures.record(
                1, "PU", name: "Pullman Paris Montparnasse", address: address, at: (48.83880, 2.31860),
                phone: "+33 1 44 36 44 36", postalCode: "75014", chain: "RT", rating: 4),
            Fixtures.record(
                2, "PU", name: "PULLMAN - PARIS MONTPARNASSE", address: "19 R DU CDT RENE MOUCHOTTE 75014 PARIS",
                at: (48.83895, 2.31870), phone: "+33144364436", chain: "RT"),
            Fixtures.record(
                1, "ME", name: "Mercure Paris Montparnasse", address: address, at: (48.83884, 2.31866),
                phone: "+33 1 44 36 44 00", postalCode: "75014", chain: "RT", rating: 3),
            Fixtures.record(
                2, "ME", name: "MERCURE - PARIS MONTPARNASSE", address: "19 R DU CDT RENE MOUCHOTTE 75014 PARIS",
                at: (48.83870, 2.31875), phone: "+33144364400", chain: "RT"),
        ]
        let prepared = matcher.prepare(records)
        let result = prepared.match()
        #expect(result.properties.count == 2)
        #expect(result.together(Fixtures.key(1, "PU"), Fixtures.key(2, "PU")))
        #expect(result.together(Fixtures.key(1, "ME"), Fixtures.key(2, "ME")))
        let across = try Fixtures.explain(prepared, Fixtures.key(1, "PU"), Fixtures.key(1, "ME"))
        #expect(across[.phone]?.level == .sameSwitchboard)
        #expect(across[.address]?.level == .exact)
        #expect(across.decision != .match)
    }

    @Test func oneBrandTwiceAFewHundredMetresApart() {
        let records = [
            Fixtures.record(
                1, "GL", name: "Novotel Paris Gare de Lyon", address: "2 Rue Hector Malot", at: (48.84420, 2.37380),
                phone: "+33 1 44 67 60 00", postalCode: "75012", chain: "RT"),
            Fixtures.record(
                2, "GL", name: "NOVOTEL PARIS GARE DE LYON", address: "2 R HECTOR MALOT 75012 PARIS", at: (48.84441, 2.37402),
                phone: "0144676000", chain: "RT"),
            Fixtures.record(
                1, "BE", name: "Novotel Paris Bercy", address: "85 Rue de Bercy", at: (48.84040, 2.37900),
                phone: "+33 1 43 42 30 00", postalCode: "75012", chain: "RT"),
            Fixtures.record(
                2, "BE", name: "NOVOTEL PARIS BERCY", address: "85 R DE BERCY 75012 PARIS", at: (48.84022, 2.37931),
                phone: "0143423000", chain: "RT"),
        ]
        let result = matcher.match(records)
        #expect(result.properties.count == 2)
        #expect(result.together(Fixtures.key(1, "GL"), Fixtures.key(2, "GL")))
        #expect(result.together(Fixtures.key(1, "BE"), Fixtures.key(2, "BE")))
        #expect(!result.together(Fixtures.key(1, "GL"), Fixtures.key(1, "BE")))
    }

    @Test func genericNamesAcrossACityAreNotMerged() {
        // Three Grand Hôtels and two Hôtels Central, kilometres apart, each seen by two suppliers.
        let places: [(code: String, name: String, at: (Double, Double), phone: String, street: String)] = [
            ("G1", "Grand Hôtel", (48.8700, 2.3300), "142000001", "12 Rue Scribe"),
            ("G2", "Grand Hôtel", (48.8420, 2.3200), "143000002", "8 Rue de Vaugirard"),
            ("G3", "Grand Hôtel", (48.8830, 2.3700), "144000003", "40 Boulevard de la Villette"),
            ("C1", "Hôtel Central", (48.8550, 2.3900), "145000004", "3 Rue de Charonne"),
            ("C2", "Hôtel Central", (48.8300, 2.3550), "146000005", "77 Avenue d'Italie"),
        ]
        var records: [MatchRecord] = []
        for place in places {
            records.append(
                Fixtures.record(1, place.code, name: place.name, address: place.street, at: place.at, phone: "+33 \(place.phone)"))
            records.append(
                Fixtures.record(
                    2, place.code, name: place.name.uppercased(), address: place.street.uppercased(),
                    at: (place.at.0 + 0.0008, place.at.1 - 0.0005), phone: "0\(place.phone)"))
        }
        let result = matcher.match(records)
        #expect(result.properties.count == places.count)
        for place in places {
            #expect(result.together(Fixtures.key(1, place.code), Fixtures.key(2, place.code)))
            #expect(result.property(of: Fixtures.key(1, place.code))?.members.count == 2)
        }
    }

    @Test func oneSupplierListingTheSameHotelTwiceUnderTwoCodes() {
        let records = [
            Fixtures.record(
                1, "BRI-1", name: "Le Bristol Paris", address: "112 Rue du Faubourg Saint-Honoré", at: (48.87190, 2.31480),
                phone: "+33 1 53 43 43 00", postalCode: "75008"),
            Fixtures.record(
                1, "BRI-2", name: "Hotel Le Bristol", address: "112 rue du Fbg St Honore", at: (48.87201, 2.31512),
                phone: "01 53 43 43 00", postalCode: "75008"),
            Fixtures.record(
                2, "BRISTOL", name: "LE BRISTOL", address: "112 R DU FAUBOURG SAINT HONORE 75008 PARIS", at: (48.87175, 2.31460),
                phone: "+33153434300"),
        ]
        let result = matcher.match(records)
        #expect(result.properties.count == 1)
        #expect(result.together(Fixtures.key(1, "BRI-1"), Fixtures.key(1, "BRI-2")))
    }

    @Test func recordsWithoutPositionAddressOrLogoAreMatchedByTheRest() {
        let records = [
            Fixtures.record(
                1, "A", name: "Hôtel Lutetia", address: "45 Boulevard Raspail", at: (48.85110, 2.32720),
                phone: "+33 1 49 54 46 00", postalCode: "75006", logo: "https://img.example/lutetia.jpg"),
            Fixtures.record(2, "A", name: "LUTETIA", address: "45 BD RASPAIL 75006 PARIS", at: nil, phone: "+33149544600"),
            Fixtures.record(3, "A", name: "Lutetia Hotel", address: nil, at: (48.85150, 2.32690), phone: "01 49 54 46 00"),
            Fixtures.record(4, "A", name: "Hotel Lutetia Paris", address: nil, at: nil, phone: "0033 1 49 54 46 00", logo: nil),
        ]
        let result = matcher.match(records)
        #expect(result.properties.count == 1)
        #expect(result.properties.first?.members.count == 4)
    }

    @Test func theMarriottAcrossFiveSpellingsIsOneStrictOrMediumProperty() {
        let records = [
            Fixtures.record(
                1, "MC-PAR-CE", name: "Paris Marriott Champs-Élysées Hotel", address: "70 Avenue des Champs-Élysées",
                at: (48.87120, 2.30300), phone: "+33 1 53 93 55 00", postalCode: "75008", chain: "MC", rating: 5,
                references: ["giata": "18364"]),
            Fixtures.record(
                2, "PARMC", name: "MARRIOTT - PARIS CHAMPS ELYSEES", address: "70 AV. DES CHAMPS ELYSEES 75008 PARIS",
                at: (48.87180, 2.30310), phone: "+33153935500", chain: "MC", references: ["giata": "18364"]),
            Fixtures.record(
                3, "77812", name: "Marriott Champs Elysees Paris", address: "70, avenue des Champs Elysées",
                at: (48.87330, 2.30450), phone: "01 53 93 55 00", postalCode: "75008", rating: 5),
            // Latitude and longitude exchanged by this supplier.
            Fixtures.record(
                4, "H-5531", name: "Paris Marriott Hotel Champs Elysees", address: nil, at: (2.30280, 48.87100),
                phone: "0033 1 53 93 55 00", rating: 4.5),
            // 0,0 for no position, and no phone.
            Fixtures.record(
                5, "mar-ce", name: "marriott paris champs-elysees", address: "70 av des champs-elysees", at: (0, 0),
                postalCode: "75008"),
        ]
        let result = matcher.match(records)
        #expect(result.properties.count == 1)
        let property = result.properties.first
        #expect(property?.members.count == 5)
        #expect(property?.tier == .strict || property?.tier == .medium)
    }

    @Test func swappedLatitudeAndLongitudeAndNullIslandAreHandled() throws {
        let records = [
            Fixtures.record(1, "A", name: "Hôtel Plaza Athénée", at: (48.86610, 2.30410), phone: "+33 1 53 67 66 65"),
            Fixtures.record(2, "A", name: "PLAZA ATHENEE", at: (2.30420, 48.86630), phone: "0153676665"),
            Fixtures.record(3, "A", name: "Plaza Athenee Paris", at: (0, 0), phone: "01 53 67 66 65"),
            Fixtures.record(4, "B", name: "Hôtel Régina", at: (48.86330, 2.33200)),
            Fixtures.record(5, "C", name: "Hôtel du Lyon", at: (45.76400, 4.83570)),
        ]
        let prepared = matcher.prepare(records)
        #expect(prepared.normalised(Fixtures.key(1, "A"))?.positionNote == .asGiven)
        #expect(prepared.normalised(Fixtures.key(2, "A"))?.positionNote == .swapped)
        #expect(prepared.normalised(Fixtures.key(2, "A"))?.position?.latitude == 48.86630)
        #expect(prepared.normalised(Fixtures.key(3, "A"))?.positionNote == .nullIsland)
        #expect(prepared.normalised(Fixtures.key(3, "A"))?.position == nil)
        #expect(prepared.normalised(Fixtures.key(5, "C"))?.positionNote == .farFromCentre)
        let explanation = try Fixtures.explain(prepared, Fixtures.key(1, "A"), Fixtures.key(2, "A"))
        #expect(explanation[.distance]?.level == .veryClose)
        let result = prepared.match()
        #expect(result.property(of: Fixtures.key(1, "A"))?.members.count == 3)
    }
}
