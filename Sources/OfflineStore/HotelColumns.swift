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
    /// `INSERT INTO hotels (…) VALUES `, and the statement of a full ``MultiRowInsert``, made once.
    let insertHead: String
    let fullInsert: String

    static let standard = HotelColumns(.standard)

    init(_ table: HotelFieldTable) {
        self.table = table
        let quoted = table.fields.map { SQLiteHotelStore.quoted($0.column) }
        select = "SELECT " + quoted.joined(separator: ", ")
        let updated = quoted.dropFirst().map { "\($0) = ?" }
        update = "UPDATE hotels SET " + updated.joined(separator: ", ") + " WHERE listId = ? AND code = ?"
        updateWithPosition = "UPDATE hotels SET " + (updated + ["position = ?"]).joined(separator: ", ") + " WHERE listId = ? AND code = ?"
        perRow = table.fields.count + 2
        insertHead = "INSERT INTO hotels (listId, " + quoted.joined(separator: ", ") + ", position) VALUES "
        fullInsert = MultiRowInsert.sql(head: insertHead, columns: perRow, rows: MultiRowInsert.rowsPerStatement)
    }

    /// Every field's value but the code's, as an update binds them.
    func updatedValues(_ hotel: Hotel) -> [DatabaseValue] {
        table.fields.dropFirst().map { SQLiteHotelStore.databaseValue($0.value(hotel)) }
    }
}
