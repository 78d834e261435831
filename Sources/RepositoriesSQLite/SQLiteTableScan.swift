import Foundation
import Repositories

/// Every row of a table in `seq` order, and how many entries the table's `id` index holds,
/// read in one transaction.
///
/// A damaged page can make SQLite skip rows without an error (a smaller cell count on a leaf
/// page, for one); the `id` index is a second, separate count of the same rows, so a scan
/// that comes up short is caught rather than served as the whole table.
struct SQLiteTableScan: Sendable {
    var rows: [SQLiteStoredRow]
    var indexedCount: Int

    /// The rows, once each one's checksum matches, their `seq`s rise, and the index holds as
    /// many entries as the table gave rows.
    ///
    /// - Throws: `RepositoryError` `corrupted`.
    func verifiedRows(location: String) throws -> [SQLiteRow] {
        var verified: [SQLiteRow] = []
        verified.reserveCapacity(rows.count)
        for index in rows.indices { verified.append(try verifiedRow(at: index, location: location)) }
        try checkCount(location: location)
        return verified
    }

    /// The row at `index`, once its checksum matches and its `seq` is larger than the one
    /// before it.
    private func verifiedRow(at index: Int, location: String) throws -> SQLiteRow {
        try rows[index].verified(
            after: index > rows.startIndex ? rows[index - 1].seq : nil, location: location)
    }

    private func checkCount(location: String) throws {
        try Self.checkCount(rows.count, indexed: indexedCount, location: location)
    }

    /// Throws `corrupted` unless the table gave as many rows, `rowCount`, as its `id` index
    /// holds entries, `indexed`.
    static func checkCount(_ rowCount: Int, indexed: Int, location: String) throws {
        guard rowCount == indexed else {
            throw RepositoryError.corrupted(
                "The table gave \(rowCount) rows but its ID index holds \(indexed) entries: a page of one of them is damaged",
                location: location)
        }
    }

}
