/// The profiles that ship inside the library, selectable by name. They are
/// source text rather than resources so a copied binary still has them.
enum BuiltInProfiles {
    static let all: [String: String] = ["sample": sample, "ota-search": otaSearch]

    /// HotelKit's sample service (`hotels serve`): `QueryHotels(city, pageSize,
    /// before?)`, newest first by addtime, paged by the addtime of the last row.
    static let sample = #"""
        {
          "name": "sample",
          "soapVersion": "1.1",
          "soapAction": "urn:hotelkit:sample#QueryHotels",
          "body": "<h:QueryHotels xmlns:h=\"urn:hotelkit:sample\"><h:city>{city}</h:city><h:pageSize>{pageSize}</h:pageSize><h:before>{cursor}</h:before></h:QueryHotels>",
          "record": "Hotel",
          "fields": {
            "code": "code", "name": "name", "address": "address", "latitude": "latitude",
            "longitude": "longitude", "logoURL": "logoURL", "addtime": "addtime",
            "phone": "phone", "chainCode": "chainCode", "rating": "rating", "postalCode": "postalCode",
            "city": "city", "countryCode": "countryCode"
          },
          "references": {"path": "reference", "catalog": "@catalog"},
          "transientFaults": ["Server.Busy", "Busy"],
          "paging": {"style": "cursor", "next": "field:addtime", "last": "//lastAddTime"}
        }
        """#

    /// OpenTravel `OTA_HotelSearchRQ`/`RS`: properties by city, continued with
    /// the `MoreDataEchoToken` the previous response returned. The address is
    /// the street lines; city, postal code, country, the voice number
    /// (`PhoneTechType` 1), chain, rating and catalogue references are fields
    /// of their own. An error reads as its code, short text and text ("322 No availability").
    static let otaSearch = #"""
        {
          "name": "ota-search",
          "soapVersion": "1.1",
          "soapAction": "http://www.opentravel.org/OTA/2003/05/HotelSearch",
          "body": "<OTA_HotelSearchRQ xmlns=\"http://www.opentravel.org/OTA/2003/05\" Version=\"1.0\" MaxResponses=\"{pageSize}\" MoreDataEchoToken=\"{cursor}\"><Criteria><Criterion><HotelRef HotelCityCode=\"{city}\" HotelName=\"{keyword}\"/></Criterion></Criteria></OTA_HotelSearchRQ>",
          "record": "Property",
          "fields": {
            "code": "@HotelCode", "name": "@HotelName", "address": {"join": ["Address/AddressLine"]},
            "latitude": "Position/@Latitude", "longitude": "Position/@Longitude",
            "logoURL": "TPA_Extensions/TPA_HotelPreviewImageURI/URL",
            "phone": "ContactNumbers/ContactNumber[@PhoneTechType='1']/@PhoneNumber", "chainCode": "@ChainCode",
            "rating": "Award/@Rating", "postalCode": "Address/PostalCode", "city": "Address/CityName",
            "countryCode": "Address/CountryName/@Code"
          },
          "references": {"path": "TPA_Extensions/TPA_PropertyReferenceInfo/PropertyReference", "catalog": "@ReferenceCatalogName", "code": "@ReferenceCatalogCode"},
          "error": {"path": "//Errors/Error", "message": ["//Errors/Error/@Code", "//Errors/Error/@ShortText", "//Errors/Error"]},
          "paging": {"style": "cursor", "next": "//Properties/@MoreDataEchoToken"}
        }
        """#
}
