import Foundation
import SOAP

// From the JSON form to the profile: each key checked and turned into its type, the paths parsed, the
// paging style worked out; a mistake is a ProfileKeyError naming the key.
extension ProfileDocument {
    func profile(fieldTable: HotelFieldTable) throws(ProfileKeyError) -> ServiceProfile {
        guard !name.isEmpty else { throw ProfileKeyError(key: "name", reason: "must not be empty") }
        guard let envelope = MessageEnvelope(rawValue: envelope ?? "soap") else {
            throw ProfileKeyError(
                key: "envelope",
                reason: "must be \"soap\", \"none\" (plain XML: the body is posted as is, "
                    + "and the response's root is the payload) or \"auto\" (either), not \"\(envelope ?? "")\"")
        }
        guard let version = SOAPVersion(rawValue: soapVersion ?? "1.1") else {
            throw ProfileKeyError(key: "soapVersion", reason: "must be \"1.1\" or \"1.2\", not \"\(soapVersion ?? "")\"")
        }
        let template = try template("body", body)
        if let record {
            try checked("record") { () throws(PathSyntaxError) in try FieldPath.checkName(record, in: record) }
            guard fields != nil else {
                throw ProfileKeyError(key: "fields", reason: "is required with \"record\": where each record's code is")
            }
        } else if fields != nil {
            throw ProfileKeyError(key: "fields", reason: "needs \"record\", the repeating element they are read from")
        }
        var mapped: [HotelField: FieldPath] = [:]
        var joins: [HotelField: FieldJoin] = [:]
        var added: [String: FieldPath] = [:]
        var addedJoins: [String: FieldJoin] = [:]
        for (key, value) in fields ?? [:] {
            let field = HotelField(rawValue: key)
            guard field != .references, field != nil || fieldTable.addedField(key) != nil else {
                throw ProfileKeyError(
                    key: "fields.\(key)",
                    reason: field == .references
                        ? "catalogue references are pairs: map them with the profile's “references” key"
                        : "unknown field; fields are "
                            + fieldTable.jsonKeys.filter { $0 != HotelField.references.rawValue }.joined(separator: ", "))
            }
            switch try mapping(key, value) {
            case .path(let path):
                if let field { mapped[field] = path } else { added[key] = path }
            case .join(let join):
                if let field { joins[field] = join } else { addedJoins[key] = join }
            }
        }
        // A trie node feeds one joined part: two joins on one path would each want every match.
        var joinedPaths: [FieldPath: String] = [:]
        for (key, join) in (joins.map { ($0.key.rawValue, $0.value) } + addedJoins.map { ($0.key, $0.value) }).sorted(by: { $0.0 < $1.0 }) {
            for path in join.paths {
                if let other = joinedPaths[path] {
                    throw ProfileKeyError(
                        key: "fields.\(key)", reason: "“\(path)” is also part of \(other); a path may be part of one joined field")
                }
                joinedPaths[path] = key
            }
        }
        if joins[.code] != nil {
            throw ProfileKeyError(key: "fields.code", reason: "is the record's identity: give one path, not a join")
        }
        guard mapped[.code] != nil || record == nil else {
            throw ProfileKeyError(key: "fields.code", reason: "is required: every record needs a code")
        }
        let errorRule = try error.map { document throws(ProfileKeyError) in
            let key = document.unless == nil && document.message == nil ? "error" : "error.path"
            let path = try checked(key) { () throws(PathSyntaxError) in try DocumentPath(parsing: document.path) }
            var message: [DocumentPath] = []
            for (index, part) in (document.message ?? []).enumerated() {
                message.append(try checked("error.message[\(index)]") { () throws(PathSyntaxError) in try DocumentPath(parsing: part) })
            }
            return ErrorRule(path: path, unless: document.unless, message: message, authentication: Set(document.authentication ?? []))
        }
        let scale = coordinateScale ?? 1
        guard scale.isFinite, scale > 0 else {
            throw ProfileKeyError(key: "coordinateScale", reason: "must be a positive number")
        }
        let endMarker = try paging?.last.map { text throws(ProfileKeyError) in
            try checked("paging.last") { () throws(PathSyntaxError) in try DocumentPath(parsing: text) }
        }
        let transient = transientFaults ?? []
        if let empty = transient.firstIndex(where: { $0.isEmpty || $0.contains(":") }) {
            throw ProfileKeyError(
                key: "transientFaults",
                reason: "“\(transient[empty])”: name a fault code by its local name, "
                    + "without a prefix (Server.Busy, ServiceUnavailable)")
        }
        var headerPaths: [String: DocumentPath] = [:]
        for (name, path) in header ?? [:] {
            headerPaths[name] = try checked("header.\(name)") { () throws(PathSyntaxError) in try DocumentPath(parsing: path) }
        }
        let paging = try pagingStyle(fields: mapped, header: headerPaths)
        if record == nil, paging != .none {
            throw ProfileKeyError(key: "paging", reason: "pages through records: give \"record\" and \"fields\", or leave paging out")
        }
        // Without its placeholder the request never changes, and the service sends the same page forever.
        // The request is its body, its SOAP Header and its HTTP headers.
        let request = [body, soapHeader ?? ""] + (http?.document.headers.map { Array($0.values) } ?? [])
        func requestHas(_ placeholder: String) -> Bool { request.contains { $0.contains(placeholder) } }
        switch paging {
        case .page where !requestHas("{page}"):
            throw ProfileKeyError(
                key: "body", reason: "page paging needs {page} in the body or a header, or every request asks for the same page")
        case .cursor where !requestHas("{cursor"):
            throw ProfileKeyError(
                key: "body", reason: "cursor paging needs {cursor} in the body or a header, or every request asks for the same page")
        case .flag where !requestHas("{more}"):
            throw ProfileKeyError(key: "body", reason: "flag paging needs {more} in the body or a header, to ask for the rows that follow")
        default:
            break
        }
        var profile = ServiceProfile(
            name: name, envelope: envelope, soapVersion: version, soapAction: soapAction ?? "", body: template, record: record,
            fields: mapped, joins: joins, error: errorRule, coordinateScale: scale, transientFaults: Set(transient), paging: paging,
            endMarker: endMarker, header: headerPaths
        )
        profile.cursorAttributes = try cursorAttributes(paging)
        profile.fieldTable = fieldTable
        profile.addedFields = added
        profile.addedJoins = addedJoins
        if references != nil, record == nil {
            throw ProfileKeyError(key: "references", reason: "needs \"record\", the element they are read from")
        }
        profile.references = try (references ?? []).enumerated().map { index, document throws(ProfileKeyError) in
            try document.rule((references?.count ?? 0) > 1 ? "references[\(index)]" : "references")
        }
        profile.notes = notes ?? []
        if envelope == .none {
            // A plain-XML request has no envelope to version, and no SOAPAction header.
            if soapVersion != nil {
                profile.warnings.append("soapVersion has no effect with \"envelope\": \"none\": a plain-XML request has no SOAP envelope")
            }
            if soapAction != nil, !requestHas("{action}") {
                profile.warnings.append(
                    "soapAction is not sent with \"envelope\": \"none\" (no SOAPAction header); "
                        + "use {action} in the body or http.headers to send it")
            }
        }
        try requestSide(&profile)
        try profile.checkPlaceholders()
        return profile
    }

    /// A field's path, or the paths it joins.
    fileprivate enum FieldMapping {
        case path(FieldPath)
        case join(FieldJoin)
    }

    fileprivate func mapping(_ key: String, _ value: FieldDocument) throws(ProfileKeyError) -> FieldMapping {
        switch value {
        case .path(let path):
            return .path(try checked("fields.\(key)") { () throws(PathSyntaxError) in try FieldPath(parsing: path) })
        case .join(let paths, let separator):
            guard !paths.isEmpty else { throw ProfileKeyError(key: "fields.\(key).join", reason: "needs at least one path") }
            var parsed: [FieldPath] = []
            for (index, path) in paths.enumerated() {
                let part = try checked("fields.\(key).join[\(index)]") { () throws(PathSyntaxError) in try FieldPath(parsing: path) }
                guard part.ancestorLevels == 0 else {
                    throw ProfileKeyError(
                        key: "fields.\(key).join[\(index)]", reason: "the parts of a join are inside the record; “../” cannot be one")
                }
                parsed.append(part)
            }
            return .join(FieldJoin(paths: parsed, separator: separator ?? ", "))
        }
    }

    /// `"with": ["@ProviderCode"]`: attributes of the cursor's element (Travelport's `NextResultReference`).
    fileprivate func cursorAttributes(_ paging: ServiceProfile.Paging) throws(ProfileKeyError) -> [String] {
        guard let with = self.paging?.with else { return [] }
        guard case .cursor(.document(let path)) = paging, path.steps.attribute == nil else {
            throw ProfileKeyError(
                key: "paging.with",
                reason: "needs cursor paging whose \"next\" is an element's “//path”, "
                    + "whose attributes travel with it")
        }
        return try with.map { name throws(ProfileKeyError) in
            guard name.hasPrefix("@"), name.count > 1, !name.dropFirst().contains(where: { "/@{}: ".contains($0) }) else {
                throw ProfileKeyError(key: "paging.with", reason: "“\(name)”: name an attribute of the cursor's element, as “@Name”")
            }
            return String(name.dropFirst())
        }
    }

    fileprivate func requestSide(_ profile: inout ServiceProfile) throws(ProfileKeyError) {
        if let http { profile.http = try http.document.options() }
        profile.soapHeader = try soapHeader.map { text throws(ProfileKeyError) in try template("soapHeader", text) }
        profile.session = try session?.document.options()
        profile.security = try security?.document.options(hasSession: profile.session != nil)
        profile.addressing = try addressing?.document.options()
        let usesEnvelope = soapHeader != nil || security != nil || addressing != nil || profile.session?.startHeader != nil
        if envelope == "none", usesEnvelope {
            throw ProfileKeyError(key: "envelope", reason: "a plain-XML service has no SOAP Header for soapHeader, security or addressing")
        }
    }

    fileprivate func pagingStyle(fields: [HotelField: FieldPath], header: [String: DocumentPath]) throws(ProfileKeyError)
        -> ServiceProfile.Paging
    {
        let paging = self.paging ?? PagingDocument(style: "none")
        let keys: [(String, Any?)] = [("first", paging.first), ("next", paging.next), ("last", paging.last), ("more", paging.more)]
        let allowed: Set<String> =
            switch paging.style {
            case "page": ["first"]
            case "cursor": ["next", "last"]
            case "flag": ["more"]
            default: []
            }
        for (key, value) in keys where value != nil && !allowed.contains(key) {
            throw ProfileKeyError(key: "paging.\(key)", reason: "does not belong to \(paging.style) paging")
        }
        switch paging.style {
        case "none":
            return .none
        case "flag":
            guard let more = paging.more else {
                throw ProfileKeyError(key: "paging.more", reason: "is required for flag paging: the “//path” of the more-rows flag")
            }
            return .flag(try checked("paging.more") { () throws(PathSyntaxError) in try DocumentPath(parsing: more) })
        case "page":
            let first = paging.first ?? 1
            guard first == 0 || first == 1 else { throw ProfileKeyError(key: "paging.first", reason: "must be 0 or 1") }
            return .page(first: first)
        case "cursor":
            guard let next = paging.next else {
                throw ProfileKeyError(key: "paging.next", reason: "is required for cursor paging: “//path”, “field:NAME” or “header:NAME”")
            }
            if next.hasPrefix("field:") {
                let name = String(next.dropFirst("field:".count))
                guard let field = HotelField(rawValue: name), fields[field] != nil else {
                    throw ProfileKeyError(key: "paging.next", reason: "“\(name)” is not one of this profile's fields")
                }
                return .cursor(.field(field))
            }
            if next.hasPrefix("header:") {
                let name = String(next.dropFirst("header:".count))
                guard header[name] != nil else {
                    throw ProfileKeyError(key: "paging.next", reason: "“\(name)” is not one of this profile's header values")
                }
                return .cursor(.header(name))
            }
            return .cursor(.document(try checked("paging.next") { () throws(PathSyntaxError) in try DocumentPath(parsing: next) }))
        default:
            throw ProfileKeyError(
                key: "paging.style", reason: "must be \"page\", \"cursor\", \"flag\" or \"none\", not \"\(paging.style)\"")
        }
    }
}
