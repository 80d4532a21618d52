import SOAP

// What a response says beyond its records: the document paths (`//…`) of the
// error, the cursor and the end marker, followed element by element, and what
// the body holds when no record matched.
extension RecordExtractor {
    /// The cursor for the next page, if this response gave one.
    var nextCursor: String? {
        if let headerCursor { return headerValues[headerCursor] }
        guard cursorField != nil else { return matchers.first { $0.role == .cursor }?.value }
        return lastRecordHasCursor ? String(decoding: lastRecordCursor.bytes(from: 0), as: UTF8.self) : nil
    }

    /// The attributes that travel with the cursor (``ServiceProfile/cursorAttributes``).
    var nextCursorAttributes: [String: String] {
        var attributes: [String: String] = [:]
        for matcher in matchers {
            if case .cursorAttribute(let name) = matcher.role, let value = matcher.value { attributes[name] = value }
        }
        return attributes
    }

    /// The more-rows flag, under flag paging.
    var moreFlag: String? {
        matchers.first { $0.role == .more }?.value
    }

    /// The list's final cursor, where the profile's end marker gives it.
    var lastCursor: String? {
        matchers.first { $0.role == .endMarker }?.value?.trimmingWhitespace()
    }

    /// Keeps what the body holds until a record comes: off the path of every response that has records.
    func noteBeforeRecords(_ element: XMLStartElement) {
        if payload == nil { payload = (element.localName.string, element.namespaceURI) }
        guard element.localName != recordName, seenBeforeRecords.count < 512 || seenBeforeRecords[element.localName.identity] != nil else {
            return
        }
        seenBeforeRecords[element.localName.identity, default: (element.localName.string, 0, depth, seenBeforeRecords.count)].count += 1
    }

    /// Why a body with content gave no record, when it repeats some element
    /// that could be the record: `no <Hotel> records; the body repeats <Property> ×100`.
    var noRecordsHint: String? {
        guard recordCount == 0, let recordElement else { return nil }
        // The shallowest repeated elements are the likeliest records; then the most repeated, then the first seen.
        let repeated = seenBeforeRecords.values.filter { $0.count > 1 }
            .sorted { ($0.depth, -$0.count, $0.order) < ($1.depth, -$1.count, $1.order) }.prefix(2)
        guard let likeliest = repeated.first else { return nil }
        var hint =
            "no <\(recordElement)> records; the body repeats "
            + repeated.map { "<\($0.name)> ×\($0.count)" }.joined(separator: " and ")
        var tries = ["\"record\": \"\(likeliest.name)\""]
        // The built-in reads OTA_HotelSearchRS only: another OTA payload would meet the same silence there.
        if payload?.namespace?.contains("opentravel.org/OTA") == true, payload?.name == "OTA_HotelSearchRS", recordElement != "Property" {
            tries.insert("the built-in profile ota-search (this is an OpenTravel <\(payload?.name ?? "")>)", at: 0)
        }
        hint += ": try " + tries.joined(separator: ", or ")
        return hint
    }

    /// The error, if the response reported one, now that every part of its message has been read.
    func bodyDidEnd() throws {
        guard let errorRule, let errorValue else { return }
        let parts = matchers.filter { $0.role == .errorMessage }.compactMap { $0.value?.foldingWhitespace() }.filter { !$0.isEmpty }
        let message = parts.isEmpty ? errorValue.foldingWhitespace() : parts.joined(separator: " ")
        throw ServiceReportedError(
            message: message.isEmpty ? "(no message given)" : message, path: errorRule.path.description,
            others: errorCount - 1, isAuthentication: errorRule.authentication.contains(errorValue.foldingWhitespace()))
    }

    /// Pushes how many steps of matcher `index` this element completes, given
    /// its parent's count, and takes the value when the whole path matches.
    func advance(matcher index: Int, parent: Int, into element: XMLStartElement) throws {
        let steps = matchers[index].steps
        var matched = 0
        // The error's path is followed to the end, to count every error.
        if !matchers[index].isDone || matchers[index].role == .error {
            if parent < steps.count, element.localName == matcherSteps[steps.lowerBound + parent] {
                matched = parent + 1
            } else if element.localName == matcherSteps[steps.lowerBound] {
                matched = 1
            }
        }
        try matcherProgress.push(matched, maxDepth: maxDepth)
        if matched == steps.count { try self.matched(matcher: index, element) }
    }

    /// Matcher `index`'s whole path matches `element`: take its attribute
    /// now, or its text once it ends.
    func matched(matcher index: Int, _ element: XMLStartElement) throws {
        if matchers[index].role == .error, matchers[index].isDone {
            if errorValue != nil { errorCount += 1 }
            return
        }
        if let attribute = matchers[index].attribute {
            if let value = element.attribute(attribute) {
                try found(value, matcher: index)
                return
            }
            // An error without the expected attribute is still an error: its
            // text stands in. A missing cursor attribute means no next page.
            guard matchers[index].role == .error else { return }
        }
        matchers[index].isDone = true
        try openCapture(.document(index))
    }

    func found(_ value: String, matcher index: Int) throws {
        matchers[index].isDone = true
        matchers[index].value = value
        // An error rule with a success value: any other value is the error.
        if matchers[index].role == .error, value.trimmingWhitespace() != errorRule?.unless {
            errorValue = value
            errorCount = 1
        }
    }
}
