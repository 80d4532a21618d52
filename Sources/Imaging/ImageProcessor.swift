/// The stages every logo goes through: decode (at a DCT scale the filters
/// allow), filter, encode. Each stage is its own type; this runs them in order.
public struct ImageProcessor: Sendable {
    public var decoder: ImageDecoder
    public var filter: FilterChain
    public var encoding: ImageEncoding

    public init(decoder: ImageDecoder = ImageDecoder(), filter: FilterChain = FilterChain(), encoding: ImageEncoding = .png()) {
        self.decoder = decoder
        self.filter = filter
        self.encoding = encoding
    }

    public struct Output: Sendable {
        public var image: RGBAImage
        public var encoded: [UInt8]
        public var warnings: [String]
    }

    public func decodeAndFilter(_ data: [UInt8]) throws(ImageError) -> (image: RGBAImage, warnings: [String]) {
        try decodeAndFilter(.bytes(data))
    }

    public func decodeAndFilter(_ source: ImageSource) throws(ImageError) -> (image: RGBAImage, warnings: [String]) {
        // A leading resize happens during decoding, on rows as they come.
        if let box = filter.scaleHint {
            let decoded = try decoder.decode(source, resizedTo: box)
            return (FilterChain(Array(filter.filters.dropFirst())).apply(to: decoded.image), decoded.warnings)
        }
        let decoded = try decoder.decode(source)
        return (filter.apply(to: decoded.image), decoded.warnings)
    }

    public func process(_ data: [UInt8]) throws(ImageError) -> Output {
        try process(.bytes(data))
    }

    public func process(_ source: ImageSource) throws(ImageError) -> Output {
        let (image, warnings) = try decodeAndFilter(source)
        return Output(image: image, encoded: try encoding.encode(image), warnings: warnings)
    }
}
