import Foundation
import Imaging
import TestSupport
import Testing

/// Peak signal-to-noise ratio of two RGBA buffers, in dB (infinity when equal).
func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return 0 }
    let squared = zip(a, b).reduce(0.0) { sum, pair in
        let difference = Double(pair.0) - Double(pair.1)
        return sum + difference * difference
    }
    guard squared > 0 else { return .infinity }
    return 10 * log10(255 * 255 / (squared / Double(a.count)))
}

func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
}

@Suite("Decoding")
struct DecodingTests {
    static let cases = (try? ImageCase.all()) ?? []

    /// The kinds of the manifest's cases: every test that takes cases by kind
    /// names one of these, and `kinds` checks each has a case.
    enum Kind: String, CaseIterable {
        case decode, partial, error, unsupported, bomb
    }

    /// The cases of one kind.
    static func cases(of kind: Kind) -> [ImageCase] {
        cases.filter { $0.kind == kind.rawValue }
    }

    @Test("the manifest has a case of every kind the tests take, and every case is of a known kind")
    func kinds() throws {
        _ = try ImageCase.all()  // a manifest that does not load says why here, not as empty lists
        for kind in Kind.allCases {
            // A parameterised test with no arguments runs nothing, silently.
            #expect(!Self.cases(of: kind).isEmpty, "no case of kind \(kind.rawValue)")
        }
        for fixture in Self.cases {
            #expect(Kind(rawValue: fixture.kind) != nil, "\(fixture.file): unknown kind \(fixture.kind)")
        }
    }

    @Test("every image decodes like the reference decoder", arguments: cases(of: .decode))
    func decode(_ fixture: ImageCase) throws {
        let decoded = try ImageDecoder().decode(fixture.bytes())
        #expect(decoded.image.width == fixture.width)
        #expect(decoded.image.height == fixture.height)
        let reference = try fixture.reference()
        if fixture.file.hasSuffix(".png") {
            // 8-bit PNG is exact; 16-bit may round one step apart.
            let tolerance = fixture.file.contains("16") ? 1 : 0
            #expect(maxDifference(decoded.image.pixels, reference) <= tolerance)
        } else {
            #expect(psnr(decoded.image.pixels, reference) >= 40, "\(psnr(decoded.image.pixels, reference)) dB")
        }
        #expect(decoded.warnings.isEmpty)
    }

    @Test("EXIF orientations 1–8 come out upright", arguments: 1...8)
    func orientation(_ value: Int) throws {
        let fixture = try #require(Self.cases.first { $0.orientation == value })
        let decoded = try ImageDecoder().decode(fixture.bytes())
        #expect(decoded.image.width == (value >= 5 ? 24 : 40))
        #expect(psnr(decoded.image.pixels, try fixture.reference()) >= 40)
    }

    @Test("a JPEG cut mid-scan gives the partial image with a warning")
    func truncatedScan() throws {
        let fixture = try #require(Self.cases(of: .partial).first)
        let decoded = try ImageDecoder().decode(fixture.bytes())
        #expect(decoded.image.width == 64 && decoded.image.height == 64)
        #expect(!decoded.warnings.isEmpty)
    }

    @Test("broken files are errors that say why", arguments: cases(of: .error))
    func broken(_ fixture: ImageCase) throws {
        #expect {
            try ImageDecoder().decode(fixture.bytes())
        } throws: { error in
            guard case ImageError.corrupt(_, let reason) = error else { return false }
            return !reason.isEmpty
        }
    }

    @Test(
        "a thumbnail of a PNG whose checksums are wrong is made, as libvips makes it; with verifiesChecksums it is refused, as a whole decode always is"
    )
    func checksumsInThumbnails() throws {
        // A byte of the fixture's IDAT data was changed: its chunk CRC and its zlib Adler-32 no longer match.
        let bytes = try #require(Self.cases.first { $0.file == "broken-png-bad-crc.png" }).bytes()
        let box = ScaleHint(width: 8, height: 8, mode: .fill)
        let thumbnail = try ImageDecoder().decode(bytes, resizedTo: box)
        #expect(thumbnail.image.width == 8 && thumbnail.image.height == 8)
        for decode in [
            { try ImageDecoder(limits: ImageLimits(verifiesChecksums: true)).decode(bytes, resizedTo: box) },
            { try ImageDecoder().decode(bytes) },
        ] {
            #expect {
                try decode()
            } throws: { error in
                guard case ImageError.corrupt(.png, let reason) = error else { return false }
                return reason.contains("incorrect data check") || reason.contains("CRC")
            }
        }
    }

    @Test("other formats are named", arguments: cases(of: .unsupported))
    func unsupported(_ fixture: ImageCase) throws {
        do {
            _ = try ImageDecoder().decode(fixture.bytes())
            Issue.record("decoded \(fixture.file)")
        } catch ImageError.unsupportedFormat(let name) {
            if let named = fixture.named { #expect(name == named) }
            #expect(ImageError.unsupportedFormat(name).description.hasPrefix("unsupported image format: "))
        }
    }

    @Test("decompression bombs are refused from the header", arguments: cases(of: .bomb))
    func bombs(_ fixture: ImageCase) throws {
        #expect {
            try ImageDecoder().decode(fixture.bytes())
        } throws: { error in
            guard case ImageError.tooManyPixels(let width, _, 50_000_000) = error else { return false }
            return width >= 20000
        }
    }

    @Test("files over a byte limit, when one is set, are refused before decoding; by default there is none")
    func byteLimit() throws {
        let bytes = try #require(Self.cases.first { $0.file == "jpeg-large.jpg" }).bytes()
        let decoder = ImageDecoder(limits: ImageLimits(maxInputBytes: 1000))
        #expect(throws: ImageError.tooManyBytes(bytes.count, limit: 1000)) { try decoder.decode(bytes) }
        #expect(throws: ImageError.tooManyBytes(bytes.count, limit: 1000)) {
            try decoder.decode(.file(path: Samples.url("Images/jpeg-large.jpg").path))
        }
        #expect(ImageLimits().maxInputBytes == nil)
    }

    @Test("a file is read as it decodes, whole or resized, to what its bytes give", arguments: cases(of: .decode))
    func fromFile(_ fixture: ImageCase) throws {
        let file = ImageSource.file(path: Samples.url("Images/\(fixture.file)").path)
        #expect(try ImageDecoder().decode(file).image == ImageDecoder().decode(fixture.bytes()).image)
        let box = ScaleHint(width: 10, height: 7, mode: .fill)
        #expect(try ImageDecoder().decode(file, resizedTo: box).image == ImageDecoder().decode(fixture.bytes(), resizedTo: box).image)
    }

    @Test("a file that cannot be opened is unreadable, with the system's reason")
    func unreadableFile() throws {
        #expect(throws: ImageError.unreadable(path: "/nonexistent/logo.png", reason: "No such file or directory")) {
            try ImageDecoder().decode(.file(path: "/nonexistent/logo.png"))
        }
    }

    @Test("a PNG file cut short says its data ended, streamed or whole", arguments: ["png-rgb8.png", "png-rgba8-adam7.png"])
    func truncatedFile(_ file: String) throws {
        let bytes = try #require(Self.cases.first { $0.file == file }).bytes()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cut = folder.appendingPathComponent(file)
        try Data(bytes.prefix(bytes.count / 2)).write(to: cut)
        for decode in [
            { try ImageDecoder().decode(.file(path: cut.path)) },
            { try ImageDecoder().decode(.file(path: cut.path), resizedTo: ScaleHint(width: 8, height: 8, mode: .fill)) },
        ] {
            #expect {
                try decode()
            } throws: { error in
                guard case ImageError.corrupt(.png, let reason) = error else { return false }
                return reason.hasPrefix("unexpected end of data")
            }
        }
    }

    @Test("a JPEG decodes at the smallest DCT scale still twice the target")
    func dctScaling() throws {
        let bytes = try #require(Self.cases.first { $0.file == "jpeg-large.jpg" }).bytes()
        let fit = try ImageDecoder().decode(bytes, hint: ScaleHint(width: 64, height: 64, mode: .fit))
        #expect(fit.image.width == 160 && fit.image.height == 120)  // 1/4: 160 ≥ 2 × 64, 1/8 would not be
        let fill = try ImageDecoder().decode(bytes, hint: ScaleHint(width: 64, height: 64, mode: .fill))
        #expect(fill.image.width == 320)  // fill needs 128 rows: 1/4 gives 120, so 1/2
        let tiny = try ImageDecoder().decode(bytes, hint: ScaleHint(width: 16, height: 16, mode: .fit))
        #expect(tiny.image.width == 80)
        #expect(fill.originalWidth == 640)
    }

    @Test("a streamed resize matches decoding whole, then resizing", arguments: cases(of: .decode))
    func streamedResize(_ fixture: ImageCase) throws {
        // Shrinking both ways, and enlarging: an interlaced PNG's passes each add their own pixels.
        for box in [
            ScaleHint(width: 10, height: 7, mode: .fill), ScaleHint(width: 12, height: 12, mode: .fit),
            ScaleHint(width: 90, height: 50, mode: .fill),
        ] {
            let streamed = try ImageDecoder().decode(fixture.bytes(), resizedTo: box).image
            let whole = try ImageDecoder().decode(fixture.bytes(), hint: box).image
            let chain = FilterChain([.resize(width: box.width, height: box.height, mode: box.mode)])
            let expected = chain.apply(to: whole)
            #expect(streamed.width == expected.width && streamed.height == expected.height)
            #expect(maxDifference(streamed.pixels, expected.pixels) <= 1)
        }
    }

    @Test(
        "a resize to the image's own size returns it unchanged, streamed or not",
        arguments: ["png-rgb8.png", "png-rgba8-adam7.png", "jpeg-baseline.jpg"])
    func identityResize(_ file: String) throws {
        let fixture = try #require(Self.cases.first { $0.file == file })
        let size = (width: try #require(fixture.width), height: try #require(fixture.height))
        for mode in [ResizeMode.fill, .fit] {
            let box = ScaleHint(width: size.width, height: size.height, mode: mode)
            let streamed = try ImageDecoder().decode(fixture.bytes(), resizedTo: box).image
            #expect(streamed == (try ImageDecoder().decode(fixture.bytes()).image))
        }
    }
}
