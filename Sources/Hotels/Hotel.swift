/// One hotel of a list, as every service profile maps it.
public struct Hotel: Sendable, Hashable, Codable {
    /// The service's identifier for the hotel; never empty.
    public var code: String
    public var name: String?
    public var address: String?
    /// Degrees, −90…90, already divided by the profile's `coordinateScale`.
    public var latitude: Double?
    /// Degrees, −180…180, already divided by the profile's `coordinateScale`.
    public var longitude: Double?
    /// An absolute http(s) URL.
    public var logoURL: String?
    /// When the service added the hotel, in Unix seconds.
    public var addtime: Int64?

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
