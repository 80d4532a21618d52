import FuzzCheck
import Imaging

/// PNG and JPEG (told apart by their magic, as always), decoded whole and
/// decoded into a resize whose box comes from the input's hash. Invariants
/// beyond not crashing: errors are ImageError (typed throws), a decoded
/// image's pixels match its size, and a resize fits its box.
func fuzzImage(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let buffer = input(start, count)
    let bytes = [UInt8](buffer)
    var random = InputRandom(buffer)
    // Small limits keep each run fast; bombs must still be refused, not decoded.
    let decoder = ImageDecoder(limits: ImageLimits(maxPixels: 4_000_000))
    if let whole = try? decoder.decode(bytes) {
        invariant(whole.image.pixels.count == whole.image.width * whole.image.height * 4, "pixels do not match the size")
    }
    let box = ScaleHint(
        width: 1 + random.next(below: 96), height: 1 + random.next(below: 96),
        mode: random.next(below: 2) == 0 ? .fill : .fit)
    if let resized = try? decoder.decode(bytes, resizedTo: box) {
        let image = resized.image
        invariant(image.pixels.count == image.width * image.height * 4, "resized pixels do not match the size")
        invariant(image.width <= box.width && image.height <= box.height, "\(image.width)×\(image.height) does not fit \(box)")
    }
    return 0
}

runFuzzer(fuzzImage)
