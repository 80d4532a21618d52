/// One hotel of a list, as every service profile maps it.
///
/// The optional fields are spelled `Optional<…>` on purpose: a `T?` stored
/// property starts out as nil, so `init` would assign over it, and Swift 6.3
/// then copies the whole record (retaining every string) instead of moving
/// its arguments in. A parse makes one `Hotel` per record.
///
/// Which fields there are, and how each is stored and written, is said once,
/// in ``HotelFields``.
public struct Hotel: Sendable, Hashable {
    /// The service's identifier for the hotel; never empty.
    public var code: String
    public var name: Optional<String>
    /// The street lines.
    public var address: Optional<String>
    /// Degrees, −90…90, already divided by the profile's `coordinateScale`.
    public var latitude: Optional<Double>
    /// Degrees, −180…180, already divided by the profile's `coordinateScale`.
    public var longitude: Optional<Double>
    /// An absolute http(s) URL.
    public var logoURL: Optional<String>
    /// When the service added the hotel, in Unix seconds.
    public var addtime: Optional<Int64>
    /// The voice number, as sent.
    public var phone: Optional<String>
    /// Upper case, as `CU` or `MC`.
    public var chainCode: Optional<String>
    /// 0 to 7, in halves (OpenTravel's range).
    public var rating: Optional<Double>
    public var postalCode: Optional<String>
    public var city: Optional<String>
    /// ISO 3166-1 alpha-2, upper case.
    public var countryCode: Optional<String>
    /// The hotel's ids in mapping catalogues: the catalogue's name, lower case, to the code (`["giata": "900301"]`).
    public var references: Optional<[String: String]>
    /// The values of the fields a ``HotelFieldTable`` adds to the built-in
    /// ones, in the table's order; nil under the built-in table. A hotel read
    /// with a table (parsed by a profile loaded with it, or read from a store
    /// opened with it) holds a value for each of the table's added fields,
    /// `.null` when the supplier sent none.
    public var extensions: Optional<[HotelExtensionValue]>

    public init(
        code: String,
        name: String? = nil,
        address: String? = nil,
        latitude: Double? = nil,
        longitude: Double? = nil,
        logoURL: String? = nil,
        addtime: Int64? = nil,
        phone: String? = nil,
        chainCode: String? = nil,
        rating: Double? = nil,
        postalCode: String? = nil,
        city: String? = nil,
        countryCode: String? = nil,
        references: [String: String]? = nil,
        extensions: [HotelExtensionValue]? = nil
    ) {
        self.code = code
        self.name = name
        self.address = address
        self.latitude = latitude
        self.longitude = longitude
        self.logoURL = logoURL
        self.addtime = addtime
        self.phone = phone
        self.chainCode = chainCode
        self.rating = rating
        self.postalCode = postalCode
        self.city = city
        self.countryCode = countryCode
        self.references = references
        self.extensions = extensions
    }

    /// The value of an added field (``HotelFieldTable/adding(_:)``); `.null` when the hotel has none.
    public subscript(extension key: String) -> HotelFieldSpec.Value {
        get { extensions?.first { $0.key == key }?.value ?? .null }
        set {
            var values = extensions ?? []
            if let index = values.firstIndex(where: { $0.key == key }) {
                values[index].value = newValue
            } else {
                values.append(HotelExtensionValue(key: key, value: newValue))
            }
            extensions = values
        }
    }
}

/// One added field's value in a ``Hotel``: its JSON key and its value.
public struct HotelExtensionValue: Sendable, Hashable {
    public var key: String
    public var value: HotelFieldSpec.Value

    public init(key: String, value: HotelFieldSpec.Value) {
        self.key = key
        self.value = value
    }
}
