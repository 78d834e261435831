import Foundation
import Repositories

/// Running a query's statement (see ``SQLiteQuery``) on a connection.
extension SQLiteTable {
    /// The rows `query` selects, as stored and unverified, in the statement's order, each
    /// with its field columns.
    func storedRows(_ query: SQLiteQuery, on connection: SQLiteConnection) throws -> [SQLiteQueryRow] {
        try connection.withStatement(query.select) { statement in
            try query.bind(to: statement, paging: true)
            var rows: [SQLiteQueryRow] = []
            while try statement.step() {
                rows.append(
                    SQLiteQueryRow(
                        stored: SQLiteStoredRow(of: statement),
                        fields: fields.enumerated().map {
                            statement.fieldValue(at: Int32(4 + $0), as: $1.type)
                        }))
            }
            return rows
        }
    }

    /// How many rows meet `query`'s conditions, counted by SQLite, before any window.
    func rowCount(_ query: SQLiteQuery, on connection: SQLiteConnection) throws -> Int {
        try connection.withStatement(query.count) { statement in
            try query.bind(to: statement, paging: false)
            return try statement.step() ? Int(statement.int64(at: 0)) : 0
        }
    }

    /// What SQLite's `EXPLAIN QUERY PLAN` says of `query`'s statement: one line per step, as
    /// `SCAN Note` or `SEARCH Note USING INDEX repositories_field_Note.rank (rank>?)`.
    func plan(of query: SQLiteQuery, on connection: SQLiteConnection) throws -> [String] {
        try connection.withStatement("EXPLAIN QUERY PLAN " + query.select) { statement in
            try query.bind(to: statement, paging: true)
            var lines: [String] = []
            while try statement.step() { lines.append(statement.text(at: 3) ?? "") }
            return lines
        }
    }

    /// Runs `ANALYZE` on the table, so SQLite's planner knows how selective each index is.
    func analyze(on connection: SQLiteConnection) throws {
        try connection.execute("ANALYZE \(quotedName)")
    }
}

/// A row a query selected: the row as stored, and its field columns as read (`nil` for a
/// value of the wrong storage class), in the table's field order.
struct SQLiteQueryRow: Sendable {
    var stored: SQLiteStoredRow
    var fields: [FieldValue?]
}
