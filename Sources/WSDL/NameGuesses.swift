/// The names HotelKit recognises in schemas and responses, and what each
/// suggests: a placeholder in a request, a field of a record, a paging
/// token. Names are compared folded: lower case, letters and digits only,
/// so `HotelCityCode`, `hotel_city_code` and `hotelCityCode` are one name.
/// OpenTravel's names are among them.
enum NameGuesses {
    static func fold(_ name: String) -> String {
        String(name.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    /// A request placeholder a value's name (and type) suggests, with why,
    /// and how well the name says it: 0 is best.
    static func placeholder(for name: String, type: String?) -> (placeholder: String, reason: String, rank: Int)? {
        let folded = fold(name)
        func rank(_ names: [String]) -> Int? { names.firstIndex(of: folded) }
        if !notCities.contains(folded), let rank = rank(cityNames) ?? (folded.contains("city") ? cityNames.count : nil) {
            return ("{city}", "its name names a city", rank)
        }
        if let rank = rank(pageSizeNames) { return ("{pageSize}", "its name says how many results a page holds", rank) }
        if let rank = rank(pageNames) { return ("{page}", "its name is a page number", rank) }
        if let rank = rank(cursorNames) { return ("{cursor}", "its name is a paging token or a position in the list", rank) }
        if let rank = rank(moreNames) { return ("{more}", "its name asks for the rows that follow", rank) }
        if let rank = rank(keywordNames) { return ("{keyword}", "its name is a search text", rank) }
        // An xs:dateTime needs a time of day too (.NET services declare dates so).
        let time = type == "dateTime" ? "T00:00:00" : ""
        if let rank = rank(checkInNames) {
            return ("{today+30}" + time, "a check-in or start date: thirty days from the day of the request", rank)
        }
        if let rank = rank(checkOutNames) { return ("{today+31}" + time, "a check-out or end date: the day after the check-in", rank) }
        return nil
    }

    /// City-like names, best first; any other name with "city" in it comes after them.
    static let cityNames = ["hotelcitycode", "citycode", "cityname", "city", "destinationcode", "destination", "locationcode", "location"]
    /// Names with "city" in them that are not the place searched: a phone's
    /// area code, a GDS office (Sabre's and Amadeus's PseudoCityCode).
    static let notCities: Set<String> = ["areacitycode", "pseudocitycode"]

    /// A credential a header or body value's name suggests: the suffix of its `{env:…}` variable.
    static func credential(for name: String) -> String? {
        let folded = fold(name)
        if ["username", "user", "userid", "login", "loginname", "loginid", "account", "accountid"].contains(folded) { return "USERNAME" }
        if ["password", "pwd", "pass", "passwd", "userpassword"].contains(folded) { return "PASSWORD" }
        if ["apikey", "key", "accesskey", "licensekey", "token", "accesstoken", "authtoken", "clientsecret"].contains(folded) {
            return "API_KEY"
        }
        if ["clientid", "partnerid", "agentid", "agencyid", "requestorid", "pseudocitycode", "officeid"].contains(folded) {
            return "CLIENT_ID"
        }
        return nil
    }

    static let pageSizeNames: [String] = [
        "pagesize", "maxresponses", "maxresults", "maxrecords", "maxitems", "resultsperpage",
        "limit", "maxhotels", "numberofresults", "pagelength", "maxrows", "rows", "size", "count",
    ]
    static let pageNames: [String] = [
        "page", "pagenumber", "pageindex", "pageno", "pagenum", "requestedpage", "startpage",
        "currentpage", "curpage", "currpage", "pageidx",
    ]
    static let cursorNames: [String] = [
        "cursor", "before", "after", "since", "moredataechotoken", "continuationtoken", "nexttoken",
        "nextpagetoken", "resumetoken", "pagingtoken", "nextresultreference", "startafter",
    ]
    static let moreNames: [String] = ["more", "moreindicator", "moreresults", "hasmore", "moredata", "moreavailable"]
    static let keywordNames: [String] = ["keyword", "keywords", "hotelname", "searchtext", "query", "searchterm"]
    static let checkInNames: [String] = ["start", "startdate", "checkin", "checkindate", "arrival", "arrivaldate", "fromdate", "datefrom"]
    static let checkOutNames: [String] = ["end", "enddate", "checkout", "checkoutdate", "departure", "departuredate", "todate", "dateto"]

    /// Response tokens that carry the next page's cursor.
    static let nextTokenNames: Set<String> = [
        "moredataechotoken", "nexttoken", "continuationtoken", "nextcursor", "cursor",
        "nextpagetoken", "resumetoken", "nextresultreference", "next", "nextkey",
    ]

    /// What each field of a record is called, best first. `parent/@attribute` and `parent/child`
    /// name a value by its element too (OpenTravel's `CountryName/@Code` is the country's code,
    /// where a bare `Code` would be anything's).
    static let fieldNames: [(field: String, names: [String])] = [
        ("code", ["code", "hotelcode", "hotelid", "propertycode", "propertyid", "id", "hotelref", "propertyref", "hotelkey"]),
        ("name", ["name", "hotelname", "propertyname", "title"]),
        ("latitude", ["latitude", "lat"]),
        ("longitude", ["longitude", "lon", "lng", "long"]),
        ("address", ["address", "addressline", "streetaddress", "street", "address1", "fulladdress"]),
        (
            "logoURL",
            [
                "logourl", "logo", "imageurl", "image", "thumbnailurl", "thumbnail", "photourl", "pictureurl", "hotelpicture",
                "picture", "picpath", "picurl", "imagepath", "imgurl", "photo", "url", "uri",
            ]
        ),
        ("addtime", ["addtime", "added", "createdat", "created", "lastmodified", "lastupdated", "updated", "modified", "timestamp"]),
        ("phone", ["phonenumber", "phone", "telephone", "telephonenumber", "phoneno", "tel"]),
        // uAPI's HotelProperty/@HotelChain; a brand is the chain's when nothing names the chain.
        ("chainCode", ["chaincode", "hotelchain", "chain", "chain/@code", "brandcode", "brand/@code"]),
        // OpenTravel's Award/@Rating is an attribute named Rating.
        ("rating", ["rating", "starrating", "stars", "starcategory", "category"]),
        ("postalCode", ["postalcode", "postcode", "zip", "zipcode"]),
        ("city", ["cityname", "city", "town"]),
        // A country's name is mapped to its code when one country has it.
        ("countryCode", ["countrycode", "countryname/@code", "country/@code", "country/code", "countryisocode", "countryname", "country"]),
    ]

    /// The fields whose value may be the first of a list (OpenTravel's ContactNumber and Award
    /// repeat, and a path takes the first match); a code, a name or a position is never taken from a list.
    static let firstOfListFields: Set<String> = ["phone", "chainCode", "rating", "postalCode", "city", "countryCode"]

    /// OpenTravel's telephone technology code (the PTT list) of a voice line: the phone is the
    /// element whose `PhoneTechType` says so, not the fax beside it.
    static let voicePhoneTechType = "1"

    /// The street parts of an address, in the order a join writes them (OTA's among them). City,
    /// postal code and country are fields of their own, and a state is no field.
    static let addressParts = ["addressline", "streetnmbr", "street", "bldgroom", "address1", "address2", "address3"]

    /// A record's catalogue references: an element of one of these names whose attribute names the
    /// catalogue (OpenTravel's `PropertyReference` with `ReferenceCatalogName` and `ReferenceCatalogCode`),
    /// its code an attribute or its text.
    static let referenceElementNames: Set<String> = [
        "reference", "propertyreference", "catalogreference", "externalreference",
        "crossreference", "gdscode",
    ]
    static let referenceCatalogNames: [String] = [
        "referencecatalogname", "catalogname", "cataloguename", "catalog", "catalogue",
        "gdsname", "system", "source",
    ]
    static let referenceCodeNames: [String] = [
        "referencecatalogcode", "catalogcode", "cataloguecode", "referencecode", "code",
        "gdspropertycode", "id", "value",
    ]
    /// Elements whose text is the code in one catalogue.
    static let fixedCatalogs: [String: String] = ["giata": "giata", "giataid": "giata", "giatacode": "giata"]

    /// Names of elements whose content is an image (a URL under them is a picture, not a web site).
    static func isImageContext(_ name: String) -> Bool {
        let folded = fold(name)
        return ["image", "logo", "photo", "picture", "media", "thumbnail", "preview"].contains { folded.contains($0) }
    }

    /// Whose a value is, by the elements between the record and it: 0 the
    /// hotel's (no element between, or a hotel-like one), 1 unknown, 2
    /// another thing's (a currency, a country, a room, a rate…).
    static func owner(of ancestors: [String]) -> Int {
        if ancestors.isEmpty || ancestors.contains(where: isHotelLike) { return 0 }
        let folded = ancestors.map(fold)
        return folded.contains { name in otherThings.contains { name.contains($0) } } ? 2 : 1
    }

    /// What a record holds besides the hotel, whose codes and names are not the hotel's.
    static let otherThings = [
        "currency", "country", "language", "board", "room", "rate", "price", "contract", "office", "destination",
        "zone", "category", "chain", "supplier", "market", "promotion", "classification", "amenity", "facility",
    ]

    /// A name a record element of a hotel list is likely to have.
    static func isHotelLike(_ name: String) -> Bool {
        let folded = fold(name)
        return ["hotel", "property", "accommodation", "lodging", "roomstay"].contains { folded.contains($0) }
    }
}
