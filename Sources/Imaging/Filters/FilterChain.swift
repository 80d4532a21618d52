import Failures

/// How `resize` fits an image to its box.
public enum ResizeMode: String, Sendable, Hashable {
    /// The whole image inside the box, keeping its aspect ratio.
    case fit
    /// The box filled, keeping the aspect ratio; the overflow is cropped, centred.
    case fill
}

/// One step of a filter chain.
public enum ImageFilter: Sendable, Hashable, CustomStringConvertible {
    case resize(width: Int, height: Int, mode: ResizeMode)
    /// Sepia toning, 0 (none) to 1 (full).
    case sepia(Double)
    case grayscale
    /// Rounded corners of this radius in output pixels, antialiased in alpha.
    case round(radius: Double)
    /// Gaussian blur of this standard deviation, in pixels.
    case blur(sigma: Double)

    public var description: String {
        switch self {
        case .resize(let width, let height, let mode): "resize:\(width)x\(height):\(mode.rawValue)"
        case .sepia(let amount): "sepia:\(FilterChain.format(amount))"
        case .grayscale: "grayscale"
        case .round(let radius): "round:\(FilterChain.format(radius))"
        case .blur(let sigma): "blur:\(FilterChain.format(sigma))"
        }
    }

    func apply(to image: RGBAImage) -> RGBAImage {
        switch self {
        case .resize(let width, let height, let mode): Resampler.resize(image, width: width, height: height, mode: mode)
        case .sepia(let amount): ColorFilters.sepia(image, amount: amount)
        case .grayscale: ColorFilters.grayscale(image)
        case .round(let radius): ColorFilters.roundCorners(image, radius: radius)
        case .blur(let sigma): GaussianBlur.apply(to: image, sigma: sigma)
        }
    }
}

/// A filter chain spec that cannot be used, naming the offending part.
public struct FilterSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    public var part: String
    public var reason: String

    public var description: String { "bad filter “\(part)”: \(reason)" }
}

extension FilterSpecError: MeaningfulError {
    /// Usage (64): the caller wrote the chain, and no retry mends it.
    public var meaning: ErrorMeaning { ErrorMeaning(kind: .usage, status: .usage) }
}

/// Filters applied in order, written the same everywhere (CLI, fetch, simulate,
/// cache keys): `resize:64x64:fill,sepia:0.8,round:8`.
public struct FilterChain: Sendable, Hashable, CustomStringConvertible {
    public var filters: [ImageFilter]

    public init(_ filters: [ImageFilter] = []) {
        self.filters = filters
    }

    /// Parses a spec; an empty spec is no filter at all.
    public init(parsing spec: String) throws(FilterSpecError) {
        var filters: [ImageFilter] = []
        for part in spec.split(separator: ",").map({ String($0).trimmingSpaces() }) where !part.isEmpty {
            filters.append(try FilterChain.parse(part))
        }
        self.init(filters)
    }

    /// The canonical spec: equal chains give equal strings, whatever their spelling.
    public var description: String { filters.map(\.description).joined(separator: ",") }

    /// The resize this chain starts with, which lets a JPEG decode smaller.
    public var scaleHint: ScaleHint? {
        guard case .resize(let width, let height, let mode)? = filters.first else { return nil }
        return ScaleHint(width: width, height: height, mode: mode)
    }

    public func apply(to image: RGBAImage) -> RGBAImage {
        filters.reduce(image) { $1.apply(to: $0) }
    }

    private static func parse(_ part: String) throws(FilterSpecError) -> ImageFilter {
        let pieces = part.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        func fail(_ reason: String) -> FilterSpecError { FilterSpecError(part: part, reason: reason) }
        func number(_ index: Int, in range: ClosedRange<Double>, default value: Double? = nil) throws(FilterSpecError) -> Double {
            guard index < pieces.count else {
                guard let value else { throw fail("needs a value") }
                return value
            }
            guard let parsed = Double(pieces[index]), parsed.isFinite, range.contains(parsed) else {
                throw fail("“\(pieces[index])” is not a number from \(format(range.lowerBound)) to \(format(range.upperBound))")
            }
            return parsed
        }
        switch pieces[0] {
        case "resize":
            guard pieces.count == 2 || pieces.count == 3 else { throw fail("write resize:WIDTHxHEIGHT[:fit|fill]") }
            let size = pieces[1].split(separator: "x").compactMap { Int($0) }
            guard size.count == 2, (1...16384).contains(size[0]), (1...16384).contains(size[1]) else {
                throw fail("the size must be WIDTHxHEIGHT, each 1 to 16384")
            }
            let mode = pieces.count == 3 ? ResizeMode(rawValue: pieces[2]) : .fit
            guard let mode else { throw fail("the mode must be fit or fill") }
            return .resize(width: size[0], height: size[1], mode: mode)
        case "sepia":
            guard pieces.count <= 2 else { throw fail("write sepia or sepia:AMOUNT") }
            return .sepia(try number(1, in: 0...1, default: 1))
        case "grayscale":
            guard pieces.count == 1 else { throw fail("grayscale takes no value") }
            return .grayscale
        case "round":
            guard pieces.count == 2 else { throw fail("write round:RADIUS") }
            return .round(radius: try number(1, in: 0...8192))
        case "blur":
            guard pieces.count == 2 else { throw fail("write blur:SIGMA") }
            return .blur(sigma: try number(1, in: 0...100))
        default:
            throw fail("unknown filter; filters are resize, sepia, grayscale, round, blur")
        }
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
