import HTTP

extension HTTPTransport {
    /// A transport for a test's own requests to a server it started. A loaded
    /// machine (every suite at once, or a sanitizer's build beside them) can
    /// leave that server without a thread for longer than a supplier's stall
    /// limit, and these tests are not about stalls: the limits are ten minutes.
    public static func patient() -> HTTPTransport {
        var configuration = TransportConfiguration()
        configuration.requestTimeout = .seconds(600)
        configuration.lowSpeedTime = .seconds(600)
        return HTTPTransport(configuration: configuration)
    }
}
