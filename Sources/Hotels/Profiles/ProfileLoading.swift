import Foundation
import SOAP

extension ServiceProfile {
    /// The names of the profiles built in: `sample` and `ota-search`.
    public static var builtInNames: [String] { BuiltInProfiles.all.keys.sorted() }

    /// Every key a profile file's top level may have, as the loader reads
    /// them: what the docs must cover.
    public static var fileKeys: [String] { ProfileDocument.CodingKeys.allCases.map(\.rawValue) }

    /// A built-in profile by name, or a profile file by path.
    /// `fields` are the fields its `fields` may map (``init(json:source:fields:)``).
    public static func named(_ nameOrPath: String, fields: HotelFieldTable = .standard) throws(ProfileError) -> ServiceProfile {
        if let json = BuiltInProfiles.all[nameOrPath] {
            return try ServiceProfile(json: Data(json.utf8), source: nameOrPath, fields: fields)
        }
        guard nameOrPath.contains("/") || nameOrPath.hasSuffix(".json") else {
            throw ProfileError(
                kind: .unknownName, source: nameOrPath, key: nil,
                reason: "no such built-in profile; built in: "
                    + builtInNames.joined(separator: ", ") + " (or give the path of a profile file)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: nameOrPath))
        } catch {
            throw ProfileError(
                kind: .unreadable, source: nameOrPath, key: nil, reason: "cannot read the file (\(error.localizedDescription))")
        }
        return try ServiceProfile(json: data, source: nameOrPath, fields: fields)
    }

    /// Reads and checks a profile; every mistake is refused with its key.
    /// `fields` are the fields the profile's `fields` may map: the built-in ones, and any added to them.
    public init(json: Data, source: String, fields: HotelFieldTable = .standard) throws(ProfileError) {
        let document: ProfileDocument
        do {
            document = try JSONDecoder().decode(ProfileDocument.self, from: json)
        } catch let error as ProfileKeyError {
            throw ProfileError(source: source, key: error.key, reason: error.reason)
        } catch let DecodingError.typeMismatch(type, context) {
            throw ProfileError(source: source, key: context.codingPath.dotted, reason: "expected \(ProfileDocument.describe(type))")
        } catch let DecodingError.keyNotFound(key, context) {
            throw ProfileError(source: source, key: (context.codingPath + [key]).dotted, reason: "is required")
        } catch let DecodingError.valueNotFound(type, context) {
            throw ProfileError(
                source: source, key: context.codingPath.dotted, reason: "expected \(ProfileDocument.describe(type)), found null")
        } catch let DecodingError.dataCorrupted(context) {
            throw ProfileError(
                source: source, key: context.codingPath.isEmpty ? nil : context.codingPath.dotted,
                reason: context.underlyingError.map { "not valid JSON (\($0.localizedDescription))" } ?? context.debugDescription)
        } catch {
            throw ProfileError(source: source, key: nil, reason: "not valid JSON (\(error))")
        }
        do {
            self = try document.profile(fieldTable: fields)
        } catch {
            throw ProfileError(source: source, key: error.key, reason: error.reason)
        }
    }
}

/// A mistake found while checking a profile.
struct ProfileKeyError: Error {
    var key: String
    var reason: String
}

/// The JSON form of a profile, refusing unknown keys at every level.
struct ProfileDocument: Decodable {
    var name: String
    var envelope: String?
    var soapVersion: String?
    var soapAction: String?
    var body: String
    var record: String?
    var fields: [String: FieldDocument]?
    var references: [ReferenceDocument]?
    var error: ErrorDocument?
    var coordinateScale: Double?
    var transientFaults: [String]?
    var header: [String: String]?
    var paging: PagingDocument?
    var http: Strict<HTTPDocument>?
    var soapHeader: String?
    var security: Strict<SecurityDocument>?
    var addressing: Strict<AddressingDocument>?
    var session: Strict<SessionDocument>?
    /// What a user must supply or check, for people only: a string or a list of them.
    var notes: [String]?

    struct PagingDocument: Decodable {
        var style: String
        var first: Int?
        var next: String?
        var last: String?
        var more: String?
        var with: [String]?

        init(style: String) {
            self.style = style
        }

        init(from decoder: any Decoder) throws {
            try decoder.refuseUnknownKeys(["style", "first", "next", "last", "more", "with"], under: "paging")
            let container = try decoder.container(keyedBy: CodingKeys.self)
            style = try container.decode(String.self, forKey: .style)
            first = try container.decodeIfPresent(Int.self, forKey: .first)
            next = try container.decodeIfPresent(String.self, forKey: .next)
            last = try container.decodeIfPresent(String.self, forKey: .last)
            more = try container.decodeIfPresent(String.self, forKey: .more)
            with = try container.decodeIfPresent([String].self, forKey: .with)
        }

        private enum CodingKeys: String, CodingKey { case style, first, next, last, more, with }
    }

    /// `"code": "@HotelCode"`, or `{"join": ["Address/AddressLine", "Address/CityName"], "separator": ", "}`.
    enum FieldDocument: Decodable {
        case path(String)
        case join([String], separator: String?)

        init(from decoder: any Decoder) throws {
            if let path = try? decoder.singleValueContainer().decode(String.self) {
                self = .path(path)
                return
            }
            let key = decoder.codingPath.last.map { "fields.\($0.stringValue)" }
            try decoder.refuseUnknownKeys(["join", "separator"], under: key)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self = .join(
                try container.decode([String].self, forKey: .join),
                separator: try container.decodeIfPresent(String.self, forKey: .separator))
        }

        private enum CodingKeys: String, CodingKey { case join, separator }
    }

    /// `{"path": "TPA_Extensions/…/PropertyReference", "catalog": "@ReferenceCatalogName", "code": "@ReferenceCatalogCode"}`;
    /// `"catalog": "giata"` names one catalogue, and without `"code"` the element's text is the code.
    struct ReferenceDocument: Decodable {
        var path: String
        var catalog: String
        var code: String?

        init(from decoder: any Decoder) throws {
            try decoder.refuseUnknownKeys(["path", "catalog", "code"], under: decoder.codingPath.dotted)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            path = try container.decode(String.self, forKey: .path)
            catalog = try container.decode(String.self, forKey: .catalog)
            code = try container.decodeIfPresent(String.self, forKey: .code)
        }

        private enum CodingKeys: String, CodingKey { case path, catalog, code }

        func rule(_ key: String) throws(ProfileKeyError) -> ReferenceRule {
            let element = try checked(key + ".path") { () throws(PathSyntaxError) in try FieldPath(parsing: path) }
            guard element.attribute == nil, element.ancestorLevels == 0, !element.elements.isEmpty else {
                throw ProfileKeyError(
                    key: key + ".path", reason: "names the repeated element inside the record; its attributes go in “catalog” and “code”")
            }
            let catalog: ReferenceRule.Catalog =
                catalog.hasPrefix("@")
                ? .attribute(try attribute(self.catalog, key + ".catalog"))
                : .fixed(self.catalog.lowercased())
            if case .fixed("") = catalog { throw ProfileKeyError(key: key + ".catalog", reason: "must not be empty") }
            return ReferenceRule(
                element: element, catalog: catalog,
                codeAttribute: try code.map { text throws(ProfileKeyError) in try attribute(text, key + ".code") })
        }

        private func attribute(_ text: String, _ key: String) throws(ProfileKeyError) -> String {
            let name = String(text.dropFirst())
            guard text.hasPrefix("@") else {
                throw ProfileKeyError(key: key, reason: "“\(text)”: name an attribute of the element, as “@Name”")
            }
            try checked(key) { () throws(PathSyntaxError) in try FieldPath.checkName(name, in: text) }
            return name
        }
    }

    /// `"error": "//path"`, or `{"path": "//path", "unless": "01", "message": ["//a", "//b"]}`.
    struct ErrorDocument: Decodable {
        var path: String
        var unless: String?
        var message: [String]?
        var authentication: [String]?

        init(from decoder: any Decoder) throws {
            if let path = try? decoder.singleValueContainer().decode(String.self) {
                self.path = path
                return
            }
            try decoder.refuseUnknownKeys(["path", "unless", "message", "authentication"], under: "error")
            let container = try decoder.container(keyedBy: CodingKeys.self)
            path = try container.decode(String.self, forKey: .path)
            unless = try container.decodeIfPresent(String.self, forKey: .unless)
            message = try container.decodeIfPresent([String].self, forKey: .message)
            authentication = try container.decodeIfPresent([String].self, forKey: .authentication)
        }

        private enum CodingKeys: String, CodingKey { case path, unless, message, authentication }
    }

    fileprivate enum CodingKeys: String, CodingKey, CaseIterable {
        case name, envelope, soapVersion, soapAction, body, record, fields, references, error, coordinateScale, transientFaults, header,
            paging
        case http, soapHeader, security, addressing, session, notes
    }

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.allCases.map(\.rawValue), under: nil)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        envelope = try container.decodeIfPresent(String.self, forKey: .envelope)
        soapVersion = try container.decodeIfPresent(String.self, forKey: .soapVersion)
        soapAction = try container.decodeIfPresent(String.self, forKey: .soapAction)
        body = try container.decode(String.self, forKey: .body)
        record = try container.decodeIfPresent(String.self, forKey: .record)
        fields = try container.decodeIfPresent([String: FieldDocument].self, forKey: .fields)
        if container.contains(.references) {
            // One rule or a list of them: the value's own shape decides, so either form's errors name their key.
            let value = try container.superDecoder(forKey: .references)
            references =
                (try? value.unkeyedContainer()) == nil ? [try ReferenceDocument(from: value)] : try [ReferenceDocument](from: value)
        }
        error = try container.decodeIfPresent(ErrorDocument.self, forKey: .error)
        coordinateScale = try container.decodeIfPresent(Double.self, forKey: .coordinateScale)
        transientFaults = try container.decodeIfPresent([String].self, forKey: .transientFaults)
        header = try container.decodeIfPresent([String: String].self, forKey: .header)
        paging = try container.decodeIfPresent(PagingDocument.self, forKey: .paging)
        http = try container.decodeIfPresent(Strict<HTTPDocument>.self, forKey: .http)
        soapHeader = try container.decodeIfPresent(String.self, forKey: .soapHeader)
        security = try container.decodeIfPresent(Strict<SecurityDocument>.self, forKey: .security)
        addressing = try container.decodeIfPresent(Strict<AddressingDocument>.self, forKey: .addressing)
        session = try container.decodeIfPresent(Strict<SessionDocument>.self, forKey: .session)
        if let note = try? container.decodeIfPresent(String.self, forKey: .notes) {
            notes = [note]
        } else {
            notes = try container.decodeIfPresent([String].self, forKey: .notes)
        }
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Double.Type, is Int.Type: "a number"
        case is [String: String].Type: "an object of strings"
        case _ where String(describing: type).hasPrefix("Array"): "an array of strings"
        default: "an object"
        }
    }
}
