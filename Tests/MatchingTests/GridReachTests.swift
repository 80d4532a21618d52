import Foundation
import Seeding
import Testing

@testable import Matching

/// A region's records are looked up in the cells that may reach it, not found by checking every record.
@Suite struct GridReachTests {
    /// Every point whose neighbourhood holds another point's cell has its own cell in that point's reach:
    /// rows do not line up, and near the poles a row's columns are many degrees wide.
    @Test("a cell's reach holds the cell of every point whose neighbourhood holds it, at every latitude", arguments: [250.0, 1_000.0])
    func reachHoldsEveryNeighbour(cellMetres: Double) {
        var random = SeededGenerator(seed: 7)
        let metresPerDegree = GeoPoint.earthRadiusMetres * Double.pi / 180
        var checked = 0
        for _ in 0..<3_000 {
            let point = GeoPoint(
                latitude: Double.random(in: -85...85, using: &random), longitude: Double.random(in: -179...179, using: &random))
            let reach = Set(GridCell.reach(of: point, cellMetres: cellMetres))
            let cell = GridCell(point, cellMetres: cellMetres)
            let spread = 3 * cellMetres / metresPerDegree
            for _ in 0..<20 {
                let widen = 1 / max(0.05, cos(point.latitude * Double.pi / 180))
                let other = GeoPoint(
                    latitude: point.latitude + Double.random(in: -spread...spread, using: &random),
                    longitude: point.longitude + Double.random(in: -spread...spread, using: &random) * widen)
                guard GridCell.neighbourhood(of: other, cellMetres: cellMetres).contains(cell) else { continue }
                checked += 1
                #expect(reach.contains(GridCell(other, cellMetres: cellMetres)), "\(other) reaches \(point) from outside its reach")
            }
        }
        #expect(checked > 10_000)
    }
}
