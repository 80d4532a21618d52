/// One hotel of a list, as every service profile maps it.
///
/// The optional fields are spelled `Optional<…>` on purpose: a `T?` stored
/// property starts out as nil, so `init` would assign over it, and Swift 6.3
/// then copies the whole record (retaining every string) instead of moving
/// its arguments in. A parse makes one `Hotel` per record.
public struct Hotel: Sendable, Hashable, Codable {
    /// The service's identifier for the hotel; never empty.
    public var code: String
    public var name: Optional<String>
    public var address: Optional<String>
    /// Degrees, −90…90, already divided by the profile's `coordinateScale`.
    public var latitude: Optional<Double>
    /// Degrees, −180…180, already divided by the profile's `coordinateScale`.
    public var longitude: Optional<Double>
    /// An absolute http(s) URL.
    public var logoURL: Optional<String>
    /// When the service added the hotel, in Unix seconds.
    public var addtime: Optional<Int64>

    public init(
        code: String,
        name: String? = nil,
        address: String? = nil,
        latitude: Double? = nil,
        longitude: Double? = nil,
        logoURL: String? = nil,
        addtime: Int64? = nil
    ) {
        self.code = code
        self.name = name
        self.address = address
        self.latitude = latitude
        self.longitude = longitude
        self.logoURL = logoURL
        self.addtime = addtime
    }
}
