import Hotels
import Matching
import Testing

@Suite struct NormalisationTests {
    /// One record's normalised fields.
    private func normalised(
        name: String? = "Hôtel Test", address: String? = nil, phone: String? = nil, postalCode: String? = nil,
        city: String = "Paris"
    ) throws -> Normalised {
        let record = Fixtures.record(1, "N", name: name, address: address, phone: phone, postalCode: postalCode, city: city)
        return try #require(Matcher().prepare([record]).normalised(record.key))
    }

    @Test(arguments: [
        ("Paris Marriott Champs-Élysées Hotel", ["marriott", "champs", "elysees"]),
        ("MARRIOTT - PARIS CHAMPS ELYSEES", ["marriott", "champs", "elysees"]),
        ("Hôtel de l'Université", ["universite"]),
        ("The Westin Paris – Vendôme", ["westin", "vendome"]),
        ("B&B Hotel Paris Gare de Lyon", ["b&b", "gare", "lyon"]),
        ("Holiday Inn & Suites", ["holiday", "inn", "suites"]),
        ("St Regis", ["saint", "regis"]),
        ("Hôtel de Paris", ["paris"]),
        ("Hotel", ["hotel"]),
        ("Hotal Bristol", ["bristol"]),
        ("Straßenbahn Hotel Köln", ["strassenbahn", "koln"]),
        ("Pension Gaipel", ["gaipel"]),
        ("Hotel Garni Alpenblick", ["alpenblick"]),
    ])
    func names(_ name: String, _ tokens: [String]) throws {
        #expect(try normalised(name: name).name?.tokens == tokens)
    }

    @Test func theCityIsDroppedOnlyWhenSomethingIsLeft() throws {
        #expect(try normalised(name: "Novotel Berlin Mitte", city: "Berlin").name?.tokens == ["novotel", "mitte"])
        #expect(try normalised(name: "Hotel Berlin", city: "Berlin").name?.tokens == ["berlin"])
    }

    @Test(arguments: [
        ("70 Avenue des Champs-Élysées", "70", ["avenue", "champs", "elysees"], nil as String?),
        ("70 AV. DES CHAMPS ELYSEES 75008 PARIS", "70", ["avenue", "champs", "elysees"], "75008"),
        ("12 bis r. de Rivoli", "12bis", ["rue", "rivoli"], nil),
        ("Friedrichstr. 103, 10117 Berlin", "103", ["friedrich", "strasse"], "10117"),
        ("Friedrichstraße 103", "103", ["friedrich", "strasse"], nil),
        ("221B Baker St", "221b", ["baker", "street"], nil),
        ("5 Rue St Honoré", "5", ["rue", "saint", "honore"], nil),
        ("3 Pl. de la Concorde", "3", ["place", "concorde"], nil),
        ("Potsdamer Platz 1", "1", ["potsdamer", "place"], nil),
        ("1600 Pennsylvania Ave NW", "1600", ["pennsylvania", "avenue", "nw"], nil),
        ("8 Blvd Haussmann", "8", ["boulevard", "haussmann"], nil),
        // A British or Canadian code in the line, without the postal code field: "St" before it is the street's type.
        ("102 OXFORD ST W2 7YA LONDON", "102", ["oxford", "street"], "W27YA"),
        ("150 Elgin St K2P 1L4 Ottawa", "150", ["elgin", "street"], "K2P1L4"),
        ("12 Kensington Gdns", "12", ["kensington", "gardens"], nil),
        ("FRIEDRICHPL 65 10547 BERLIN", "65", ["friedrich", "place"], "10547"),
        ("Friedrichplatz 65", "65", ["friedrich", "place"], nil),
    ])
    func addresses(_ line: String, _ number: String, _ street: [String], _ postalCode: String?) throws {
        let address = try #require(try normalised(address: line).address)
        #expect(address.houseNumber == number)
        #expect(address.streetTokens == street)
        #expect(address.postalCode == postalCode)
    }

    @Test func thePostalCodeFieldIsRemovedFromTheLine() throws {
        let record = try normalised(address: "10 Downing Street SW1A 2AA London", postalCode: "SW1A 2AA", city: "London")
        #expect(record.address?.streetTokens == ["downing", "street"])
        #expect(record.postalCode == "SW1A2AA")
    }

    @Test(arguments: [
        ("+33 1 53 93 55 00", "33153935500"), ("01 53 93 55 00", "0153935500"), ("0033 (0)1-53-93-55-00", "003301539355" + "00"),
        ("+33 1 53 93 55 00 / +33 1 53 93 55 01", "33153935500"), ("+1 212 555 0100 ext. 12", "12125550100"),
    ])
    func phones(_ phone: String, _ digits: String) throws {
        #expect(try normalised(phone: phone).phone?.digits == digits)
    }

    @Test(arguments: ["", "n/a", "000000000", "12 34"])
    func phonesThatAreNone(_ phone: String) throws {
        #expect(try normalised(phone: phone).phone == nil)
    }

    @Test(arguments: [("75 008", "75008"), ("F-75008", "75008"), ("sw1a 1aa", "SW1A1AA"), ("D-10117", "10117"), ("—", nil as String?)])
    func postalCodes(_ code: String, _ expected: String?) throws {
        #expect(try normalised(postalCode: code).postalCode == expected)
    }

    @Test func phonesCompareByTheirLastNineDigits() throws {
        let records = [
            Fixtures.record(1, "A", name: "A", phone: "+33 1 53 93 55 00"),
            Fixtures.record(2, "A", name: "A", phone: "01.53.93.55.00"),
            Fixtures.record(3, "A", name: "A", phone: "+33 1 53 93 55 99"),
        ]
        let prepared = Matcher().prepare(records)
        let same = try Fixtures.explain(prepared, records[0].key, records[1].key)
        let switchboard = try Fixtures.explain(prepared, records[0].key, records[2].key)
        #expect(same[.phone]?.level == .exact)
        #expect(switchboard[.phone]?.level == .sameSwitchboard)
    }
}
