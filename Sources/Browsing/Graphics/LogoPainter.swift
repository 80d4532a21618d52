import CChafa
import Imaging

/// What the screen draws for one logo.
public enum Painting: Sendable, Equatable {
    /// Symbols mode: rows × columns cells (a one-column character with its
    /// colours) to put in the screen buffer like text. A nil colour is the
    /// terminal's default, where the logo is transparent.
    case cells([[Cell]])
    /// Pixel modes: the bytes that draw the image with its top-left corner at
    /// the cursor, covering exactly `columns` × `rows` cells. The caller moves
    /// the cursor first, and puts it where it wants it afterwards. For kitty,
    /// the image's transmission alone (see ``ImagePlacement/bytes``).
    case escape([UInt8])
}

/// Turns decoded logos into cells or escape sequences with libchafa.
///
/// Every call makes and frees its own chafa objects, so one painter may be
/// used from many threads at once.
public struct LogoPainter: Sendable {
    /// The protocol and colours logos are drawn with.
    public let support: GraphicsSupport
    /// The size of one character cell in pixels, which pixel modes draw at
    /// and which gives cells' aspect ratio in symbols mode.
    public let cellPixelWidth: Int
    public let cellPixelHeight: Int

    /// Boxes beyond this many cells either way are not drawn: a logo is
    /// small, and a bound keeps pixel buffers bounded.
    public static let maximumCells = 1_000

    /// Padded images beyond this many pixels are shrunk first, so a logo
    /// of 10000 × 1 pixels cannot turn into a square of 10⁸.
    static let maximumPaddedPixels = 4_194_304

    /// - Parameters:
    ///   - support: The protocol logos are drawn with, and the colours of symbols.
    ///   - cellPixelWidth: The terminal's cell width in pixels (from
    ///     `TIOCGWINSZ`); kept within 1…512.
    ///   - cellPixelHeight: The terminal's cell height in pixels, kept within 1…512.
    public init(support: GraphicsSupport, cellPixelWidth: Int = 10, cellPixelHeight: Int = 20) {
        self.support = support
        self.cellPixelWidth = min(max(cellPixelWidth, 1), 512)
        self.cellPixelHeight = min(max(cellPixelHeight, 1), 512)
    }

    /// A painter for a terminal whose cells measure `cellPixelSize` (from
    /// ``Terminal/cellPixelSize``); 10 × 20 pixels when the terminal does
    /// not say. Pixel modes draw at this size, so a sixel fills its box exactly.
    public init(support: GraphicsSupport, cellPixelSize: (width: Int, height: Int)?) {
        self.init(support: support, cellPixelWidth: cellPixelSize?.width ?? 10, cellPixelHeight: cellPixelSize?.height ?? 20)
    }

    /// Draws `image` in a box of `columns` × `rows` cells, keeping its aspect
    /// ratio and centring it (the rest of the box is transparent).
    ///
    /// An image that is empty or whose pixels do not match its size, or a box
    /// under one cell, gives the ``placeholder(columns:rows:)`` as cells;
    /// so does mode ``GraphicsMode/none``.
    public func paint(_ image: RGBAImage, columns: Int, rows: Int) -> Painting {
        guard columns >= 1, rows >= 1, columns <= Self.maximumCells, rows <= Self.maximumCells,
            support.mode != .none,
            let padded = Self.letterboxed(image, boxWidth: columns * cellPixelWidth, boxHeight: rows * cellPixelHeight)
        else {
            return .cells(placeholder(columns: columns, rows: rows))
        }
        let pixelMode: ChafaPixelMode
        switch support.mode {
        case .kitty: pixelMode = CHAFA_PIXEL_MODE_KITTY
        case .sixel: pixelMode = CHAFA_PIXEL_MODE_SIXELS
        case .iterm: pixelMode = CHAFA_PIXEL_MODE_ITERM2
        case .symbols, .none: pixelMode = CHAFA_PIXEL_MODE_SYMBOLS
        }

        guard let config = chafa_canvas_config_new() else {
            return .cells(placeholder(columns: columns, rows: rows))
        }
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, gint(columns), gint(rows))
        chafa_canvas_config_set_cell_geometry(config, gint(cellPixelWidth), gint(cellPixelHeight))
        chafa_canvas_config_set_pixel_mode(config, pixelMode)
        chafa_canvas_config_set_canvas_mode(
            config, support.colors == .truecolor ? CHAFA_CANVAS_MODE_TRUECOLOR : CHAFA_CANVAS_MODE_INDEXED_256)
        if pixelMode == CHAFA_PIXEL_MODE_SYMBOLS, let symbols = chafa_symbol_map_new() {
            // Blocks and space are in every terminal font and one column wide;
            // braille, sextants or wedges show as boxes in many.
            chafa_symbol_map_add_by_tags(symbols, ChafaSymbolTags(CHAFA_SYMBOL_TAG_BLOCK.rawValue | CHAFA_SYMBOL_TAG_SPACE.rawValue))
            chafa_symbol_map_remove_by_tags(symbols, ChafaSymbolTags(CHAFA_SYMBOL_TAG_WIDE.rawValue | CHAFA_SYMBOL_TAG_BAD.rawValue))
            chafa_canvas_config_set_symbol_map(config, symbols)  // copies the map
            chafa_symbol_map_unref(symbols)
        }

        guard let canvas = chafa_canvas_new(config) else {
            return .cells(placeholder(columns: columns, rows: rows))
        }
        defer { chafa_canvas_unref(canvas) }
        padded.pixels.withUnsafeBufferPointer { buffer in
            chafa_canvas_draw_all_pixels(
                canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, buffer.baseAddress,
                gint(padded.width), gint(padded.height), gint(padded.width * 4))
        }

        if pixelMode == CHAFA_PIXEL_MODE_SYMBOLS {
            return .cells(cells(of: canvas, columns: columns, rows: rows))
        }
        guard let termInfo = Self.makeTermInfo() else {
            return .cells(placeholder(columns: columns, rows: rows))
        }
        defer { chafa_term_info_unref(termInfo) }
        guard let printed = chafa_canvas_print(canvas, termInfo) else {
            return .cells(placeholder(columns: columns, rows: rows))
        }
        defer { hk_chafa_gstring_free(printed) }
        let text = printed.pointee
        guard let bytes = text.str else { return .escape([]) }
        return .escape(
            bytes.withMemoryRebound(to: UInt8.self, capacity: Int(text.len)) {
                Array(UnsafeBufferPointer(start: $0, count: Int(text.len)))
            })
    }

    /// A box for a logo not here yet (or not drawable): dim `░` cells,
    /// `rows` × `columns`, in any mode. Empty when the box is.
    public func placeholder(columns: Int, rows: Int) -> [[Cell]] {
        let columns = min(max(columns, 0), Self.maximumCells)
        let rows = min(max(rows, 0), Self.maximumCells)
        guard columns > 0 else { return Array(repeating: [], count: rows) }
        let grey: TerminalColor = support.colors == .truecolor ? .rgb(110, 110, 110) : .indexed(242)
        let cell = Cell("░", style: CellStyle(foreground: grey, dim: true))
        return Array(repeating: Array(repeating: cell, count: columns), count: rows)
    }

    // MARK: - Helpers

    /// Reads the symbols canvas cell by cell: chafa's own choices, not a parse of its ANSI text.
    private func cells(of canvas: OpaquePointer, columns: Int, rows: Int) -> [[Cell]] {
        let indexed = support.colors == .indexed256
        func color(_ raw: gint) -> TerminalColor? {
            // -1 is transparent: the terminal's own background shows.
            guard raw >= 0 else { return nil }
            if indexed {
                return raw <= 255 ? .indexed(UInt8(raw)) : nil
            }
            return .rgb(UInt8((raw >> 16) & 0xFF), UInt8((raw >> 8) & 0xFF), UInt8(raw & 0xFF))
        }
        return (0..<rows).map { y in
            (0..<columns).map { x in
                let code = chafa_canvas_get_char_at(canvas, gint(x), gint(y))
                var foreground: gint = -1
                var background: gint = -1
                chafa_canvas_get_raw_colors_at(canvas, gint(x), gint(y), &foreground, &background)
                // 0 would be the right half of a wide symbol; the map holds none, but a cell must stay one column.
                let scalar = Unicode.Scalar(code).flatMap { $0.value >= 0x20 ? $0 : nil } ?? " "
                return Cell(Character(scalar), style: CellStyle(foreground: color(foreground), background: color(background)))
            }
        }
    }

    /// Escape sequences for the pixel protocols, the same wherever the tests
    /// run: chafa's fallback (xterm-like, with every image protocol), with
    /// kitty's start changed to transmit the image without showing it (`a=t`;
    /// chafa fills in `c` and `r` too, which a transmission ignores) and
    /// without an answer from the terminal (`q=2`: nothing lands in the input
    /// stream). ``FrameRenderer`` gives it a number, sends it once and places
    /// it by number (`a=p`) wherever the logo shows.
    static func makeTermInfo() -> OpaquePointer? {
        guard let database = chafa_term_db_new() else { return nil }
        defer { chafa_term_db_unref(database) }
        guard let info = chafa_term_db_get_fallback_info(database) else { return nil }
        _ = chafa_term_info_set_seq(
            info, CHAFA_TERM_SEQ_BEGIN_KITTY_IMMEDIATE_IMAGE_V1,
            "\u{1B}_Ga=t,f=%1,s=%2,v=%3,c=%4,r=%5,q=2,m=1\u{1B}\\", nil)
        return info
    }

    /// `image` padded with transparent pixels to the box's aspect ratio, the
    /// original centred: chafa stretches what it is given over the whole box,
    /// so this keeps the logo's shape while the drawing still covers the box.
    /// Nil when the image is malformed.
    static func letterboxed(_ image: RGBAImage, boxWidth: Int, boxHeight: Int) -> RGBAImage? {
        guard image.width > 0, image.height > 0, boxWidth > 0, boxHeight > 0 else { return nil }
        let (area, areaOverflow) = image.width.multipliedReportingOverflow(by: image.height)
        let (byteCount, bytesOverflow) = area.multipliedReportingOverflow(by: 4)
        guard !areaOverflow, !bytesOverflow, image.pixels.count == byteCount else { return nil }

        var source = image
        var (width, height) = paddedSize(width: image.width, height: image.height, boxWidth: boxWidth, boxHeight: boxHeight)
        if Double(width) * Double(height) > Double(maximumPaddedPixels) {
            let scale = (Double(maximumPaddedPixels) / (Double(width) * Double(height))).squareRoot()
            source = nearestNeighbour(
                image, width: max(1, Int(Double(image.width) * scale)),
                height: max(1, Int(Double(image.height) * scale)))
            (width, height) = paddedSize(width: source.width, height: source.height, boxWidth: boxWidth, boxHeight: boxHeight)
        }
        if width == source.width, height == source.height { return source }

        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let left = (width - source.width) / 2
        let top = (height - source.height) / 2
        let rowBytes = source.width * 4
        for y in 0..<source.height {
            let from = y * rowBytes
            let to = ((top + y) * width + left) * 4
            pixels.replaceSubrange(to..<(to + rowBytes), with: source.pixels[from..<(from + rowBytes)])
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// The smallest size holding `width` × `height` with the box's aspect ratio.
    private static func paddedSize(width: Int, height: Int, boxWidth: Int, boxHeight: Int) -> (Int, Int) {
        // Compared in Double: the products of large sizes could overflow Int on 32-bit.
        let wide = Double(width) * Double(boxHeight)
        let tall = Double(height) * Double(boxWidth)
        if wide > tall {
            return (width, max(height, Int((wide / Double(boxWidth)).rounded())))
        }
        return (max(width, Int((tall / Double(boxHeight)).rounded())), height)
    }

    private static func nearestNeighbour(_ image: RGBAImage, width: Int, height: Int) -> RGBAImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            let sy = y * image.height / height
            for x in 0..<width {
                let sx = x * image.width / width
                let from = (sy * image.width + sx) * 4
                let to = (y * width + x) * 4
                for channel in 0..<4 { pixels[to + channel] = image.pixels[from + channel] }
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }
}
