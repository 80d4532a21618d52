import CJPEG

/// The EXIF orientation of a JPEG (tag 0x0112 in IFD0 of the APP1 "Exif"
/// segment), and the transform that makes the image upright.
struct ExifOrientation: Equatable {
    /// 1 (upright) to 8, as EXIF numbers them.
    let value: Int

    init(value: Int) {
        self.value = (1...8).contains(value) ? value : 1
    }

    /// Reads the orientation from the APP1 markers libjpeg saved; 1 when absent or unreadable.
    init(markers: UnsafeMutablePointer<jpeg_marker_struct>?) {
        var marker = markers
        while let current = marker {
            if current.pointee.marker == 0xE1, let data = current.pointee.data {
                let bytes = UnsafeBufferPointer(start: data, count: Int(current.pointee.data_length))
                if let value = ExifOrientation.parse(bytes) {
                    self.init(value: value)
                    return
                }
            }
            marker = current.pointee.next
        }
        self.init(value: 1)
    }

    /// Every read is bounds-checked: EXIF comes from the file.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= 14, Array(bytes[0..<6]) == [0x45, 0x78, 0x69, 0x66, 0, 0] else { return nil }
        let tiff = UnsafeBufferPointer(rebasing: bytes[6...])
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func read16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= tiff.count else { return nil }
            let (a, b) = (Int(tiff[offset]), Int(tiff[offset + 1]))
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func read32(_ offset: Int) -> Int? {
            guard let low = read16(littleEndian ? offset : offset + 2),
                let high = read16(littleEndian ? offset + 2 : offset)
            else { return nil }
            return low | high << 16
        }
        guard read16(2) == 42, let directory = read32(4), let count = read16(directory) else { return nil }
        for entry in 0..<count {
            let offset = directory + 2 + entry * 12
            guard let tag = read16(offset) else { return nil }
            if tag == 0x0112 { return read16(offset + 8) }
        }
        return nil
    }

    /// Orientations 5 to 8 turn the image a quarter.
    var swapsAxes: Bool { value >= 5 }

    func apply(to image: RGBAImage) -> RGBAImage {
        guard value != 1 else { return image }
        let (width, height) = (image.width, image.height)
        let (outputWidth, outputHeight) = swapsAxes ? (height, width) : (width, height)
        var output = [UInt32](repeating: 0, count: width * height)
        image.pixels.withUnsafeBytes { raw in
            let source = raw.bindMemory(to: UInt32.self)
            for y in 0..<outputHeight {
                for x in 0..<outputWidth {
                    let (sourceX, sourceY): (Int, Int)
                    switch value {
                    case 2: (sourceX, sourceY) = (width - 1 - x, y)
                    case 3: (sourceX, sourceY) = (width - 1 - x, height - 1 - y)
                    case 4: (sourceX, sourceY) = (x, height - 1 - y)
                    case 5: (sourceX, sourceY) = (y, x)
                    case 6: (sourceX, sourceY) = (y, height - 1 - x)
                    case 7: (sourceX, sourceY) = (width - 1 - y, height - 1 - x)
                    default: (sourceX, sourceY) = (width - 1 - y, x)
                    }
                    output[y * outputWidth + x] = source[sourceY * width + sourceX]
                }
            }
        }
        let pixels = output.withUnsafeBytes { Array($0) }
        return RGBAImage(width: outputWidth, height: outputHeight, pixels: pixels)
    }
}
