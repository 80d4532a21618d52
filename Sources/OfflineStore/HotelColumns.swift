import GRDB
import Hotels

/// The statements a store runs on the `hotels` table's field columns, made
/// once from its ``HotelFieldTable``: one column per field, quoted, in the
/// table's order.
struct HotelColumns: Sendable {
    let table: HotelFieldTable
    /// `SELECT` and every field's column, for a `FROM` to follow.
    let select: String
    /// Every field but the code, set by a row's list and code; and the same with its position.
    let update: String
    let updateWithPosition: String
    /// The list's id, every field, the position.
    let perRow: Int

    static let standard = HotelColumns(.standard)

    init(_ table: HotelFieldTable) {
        self.table = table
        let quoted = table.fields.map { SQLiteHotelStore.quoted($0.column) }
        select = "SELECT " + quoted.joined(separator: ", ")
        let updated = quoted.dropFirst().map { "\($0) = ?" }
        update = "UPDATE hotels SET " + updated.joined(separator: ", ") + " WHERE listId = ? AND code = ?"
        updateWithPosition = "UPDATE hotels SET " + (updated + ["position = ?"]).joined(separator: ", ") + " WHERE listId = ? AND code = ?"
        perRow = table.fields.count + 2
    }

    /// A multi-row insert of `rows` rows.
    func insert(rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: perRow).joined(separator: ",") + ")"
        return "INSERT INTO hotels (listId, " + table.fields.map { SQLiteHotelStore.quoted($0.column) }.joined(separator: ", ")
            + ", position) VALUES " + Array(repeating: row, count: rows).joined(separator: ",")
    }

    /// Every field's value but the code's, as an update binds them.
    func updatedValues(_ hotel: Hotel) -> [DatabaseValue] {
        table.fields.dropFirst().map { SQLiteHotelStore.databaseValue($0.value(hotel)) }
    }
}
