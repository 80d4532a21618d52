import Foundation
import Hummingbird

/// The fields of a posted form (`application/x-www-form-urlencoded`), at most 4 KiB of them.
struct Form {
    private let items: [URLQueryItem]

    init(_ request: Request) async throws {
        let body = try await request.body.collect(upTo: 4096)
        var components = URLComponents()
        components.percentEncodedQuery = String(buffer: body).replacingOccurrences(of: "+", with: "%20")
        items = components.queryItems ?? []
    }

    subscript(name: String) -> String? {
        items.first { $0.name == name }?.value
    }
}
