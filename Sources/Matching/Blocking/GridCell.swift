import Foundation

/// A square of a grid of roughly equal cells laid over the earth.
///
/// Rows are bands of latitude; within a row, columns are as wide in metres
/// as the row is tall, so a row's columns are narrower in degrees towards the
/// poles. Rows therefore do not line up, and a cell's neighbours in the row
/// above are found from the position itself (``neighbourhood(of:cellMetres:)``).
struct GridCell: Hashable, Sendable {
    let row: Int
    let column: Int

    init(_ point: GeoPoint, cellMetres: Double) {
        let rowDegrees = Self.rowDegrees(cellMetres)
        let row = Int((point.latitude / rowDegrees).rounded(.down))
        self.init(row: row, column: Self.column(point.longitude, row: row, rowDegrees: rowDegrees))
    }

    private init(row: Int, column: Int) {
        self.row = row
        self.column = column
    }

    /// The cell and the 8 around it: every point within `cellMetres` of `point` is in one of them.
    static func neighbourhood(of point: GeoPoint, cellMetres: Double) -> [GridCell] {
        let rowDegrees = rowDegrees(cellMetres)
        let row = Int((point.latitude / rowDegrees).rounded(.down))
        var cells: [GridCell] = []
        cells.reserveCapacity(9)
        for neighbourRow in (row - 1)...(row + 1) {
            let column = column(point.longitude, row: neighbourRow, rowDegrees: rowDegrees)
            for neighbourColumn in (column - 1)...(column + 1) {
                cells.append(GridCell(row: neighbourRow, column: neighbourColumn))
            }
        }
        return cells
    }

    /// The cells of every point whose ``neighbourhood(of:cellMetres:)`` may hold `point`'s cell: the rows
    /// around it, and in each the columns that reach it (rows do not line up, so a row may give four).
    static func reach(of point: GeoPoint, cellMetres: Double) -> [GridCell] {
        let rowDegrees = rowDegrees(cellMetres)
        let cell = GridCell(point, cellMetres: cellMetres)
        let columnDegrees = columnDegrees(row: cell.row, rowDegrees: rowDegrees)
        // A point whose neighbourhood holds the cell is in these longitudes: its column in the cell's row is one away at most.
        let (west, east) = (Double(cell.column - 1) * columnDegrees, Double(cell.column + 2) * columnDegrees)
        var cells: [GridCell] = []
        for row in (cell.row - 1)...(cell.row + 1) {
            for column in Self.column(west, row: row, rowDegrees: rowDegrees)...Self.column(east, row: row, rowDegrees: rowDegrees) {
                cells.append(GridCell(row: row, column: column))
            }
        }
        return cells
    }

    private static func rowDegrees(_ cellMetres: Double) -> Double {
        max(1, cellMetres) / (GeoPoint.earthRadiusMetres * Double.pi / 180)
    }

    private static func column(_ longitude: Double, row: Int, rowDegrees: Double) -> Int {
        Int((longitude / columnDegrees(row: row, rowDegrees: rowDegrees)).rounded(.down))
    }

    private static func columnDegrees(row: Int, rowDegrees: Double) -> Double {
        let latitude = min(89.9, abs((Double(row) + 0.5) * rowDegrees))
        return rowDegrees / max(0.001, cos(latitude * Double.pi / 180))
    }
}
