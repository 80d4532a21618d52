import Crypto
import Foundation
import Hotels

/// The load-more statement (``PostgresHotelStore/appendAtOnceSQL(table:columnList:selectList:)``) kept in a
/// PL/pgSQL function, so that each connection plans it once. Sent as a
/// statement, it was parsed and planned on every page: about 0.5 ms, which
/// put the fetch into PostgreSQL 19% behind 19ca83b's function (session 31).
/// A named prepared statement would do the same, but PgBouncer before 1.21
/// cannot carry one in transaction mode; a function is schema, not session state.
///
/// The function is made from the statement and named after it: a change of
/// the field table is a function of another name, made when a store opens
/// (``PostgresSchema``), with no migration, and two HotelKits of different
/// fields, during a rolling upgrade, each call their own.
struct LoadMoreFunction: Sendable {
    /// `hotelkit_load_more_` and the first 16 hex digits of the body's SHA-256 (its casts name each field's type).
    let name: String
    /// The statement's parameters, as it casts them: the list's key, the
    /// lease, the checkpoint, whether the list is exhausted, the fetch time,
    /// the row count, then one array per field.
    let parameterTypes: [String]
    /// What a page sends: the call, each argument cast as the function takes it.
    let call: String
    let definition: String

    init(table: HotelFieldTable, columnList: String, selectList: String) {
        let body = """
            DECLARE refused boolean;
            BEGIN
            \(PostgresHotelStore.appendAtOnceSQL(table: table, columnList: columnList, selectList: selectList));
            END
            """
        name = "hotelkit_load_more_" + SHA256.hash(data: Array(body.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        parameterTypes =
            ["text", "text", "text", "text", "int8", "int8", "text", "bool", "float8", "int8"]
            + table.fields.map { Rows.Column.arrayType($0.type) }
        call = "SELECT \(name)(" + parameterTypes.enumerated().map { "$\($0.offset + 1)::\($0.element)" }.joined(separator: ", ") + ")"
        definition = """
            CREATE OR REPLACE FUNCTION \(name)(\(parameterTypes.joined(separator: ", "))) RETURNS void LANGUAGE plpgsql AS $load_more$
            \(body)
            $load_more$
            """
    }

    /// `undefined_function`: the function was dropped after the store opened (by hand, or a restore of an
    /// older dump); the page goes the general way, and the next open makes the function again.
    static let undefinedFunction = "42883"
}
