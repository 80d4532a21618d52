/// One record's fields as raw UTF-8, trimmed of surrounding white space: a
/// view into the extractor's buffers, valid only during the `onRecord` call,
/// so a record's text is read where it was parsed and copied once, into the
/// ``Hotel`` it becomes.
struct RecordFields {
    let ranges: UnsafePointer<FieldBytes>
    let text: UnsafePointer<UInt8>
    let attributes: UnsafePointer<UInt8>
    let joined: UnsafePointer<UInt8>
    /// The record's catalogue references, as found; empty for a profile without ``ServiceProfile/references``.
    let references: UnsafeBufferPointer<ReferenceBytes>

    /// The field's bytes; nil when it is absent or empty.
    subscript(_ field: HotelField) -> UnsafeBufferPointer<UInt8>? {
        bytes(ranges[RecordExtractor.slot(field)])
    }

    /// The bytes of the profile's added field at `index` in its table's ``HotelFieldTable/extensions``; nil when absent or empty.
    func added(_ index: Int) -> UnsafeBufferPointer<UInt8>? {
        bytes(ranges[RecordExtractor.builtInSlots + index])
    }

    /// The bytes of a range in one of the buffers; nil when empty.
    func bytes(_ range: FieldBytes) -> UnsafeBufferPointer<UInt8>? {
        guard range.count > 0 else { return nil }
        let base =
            switch range.source {
            case .text: text
            case .attributes: attributes
            case .joined: joined
            }
        return UnsafeBufferPointer(start: base + range.start, count: range.count)
    }

    /// The field as text; nil when it is absent or empty.
    func string(_ field: HotelField) -> String? {
        self[field].map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Where one field's bytes are: in the extractor's text, attribute or joined buffer.
struct FieldBytes {
    enum Source: UInt8 { case text, attributes, joined }

    var start: Int
    var count: Int
    var source: Source

    static let absent = FieldBytes(start: 0, count: 0, source: .text)
}

/// One catalogue reference of a record: where its catalogue's name and its code are.
struct ReferenceBytes {
    var catalog: FieldBytes
    var code: FieldBytes
}
