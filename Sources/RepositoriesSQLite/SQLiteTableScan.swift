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

    /// How many rows make decoding worth splitting across the processors: below it, starting
    /// tasks costs more than it saves.
    static let parallelThreshold = 2_000

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

    /// Every row checked as ``verifiedRows(location:)`` checks them, and decoded by `decode`,
    /// in `seq` order; from ``parallelThreshold`` rows on, in one chunk per processor at once.
    ///
    /// The errors are those a check of every row first, then a decode of every row, would
    /// throw: damage anywhere (the first damaged row) before a row that does not decode (the
    /// first such row), so a damaged file is always reported as damage.
    ///
    /// - Throws: `RepositoryError` `corrupted`, or the first error `decode` throws.
    /// - Complexity: O(*n*) work, split across the processors.
    func decodedRows<Entity: Sendable>(
        location: String, decode: @escaping @Sendable (SQLiteRow) throws -> Entity
    ) async throws -> [Entity] {
        let chunks = Self.chunks(of: rows.count)
        if chunks.count == 1 {
            return try entities(
                from: [try decodedChunk(chunks[0], location: location, decode: decode)], location)
        }
        let outcomes = await withTaskGroup(of: (Int, Result<DecodedChunk<Entity>, any Error>).self) { group in
            for (number, range) in chunks.enumerated() {
                group.addTask {
                    (number, Result { try decodedChunk(range, location: location, decode: decode) })
                }
            }
            var outcomes = [Result<DecodedChunk<Entity>, any Error>?](repeating: nil, count: chunks.count)
            for await (number, outcome) in group { outcomes[number] = outcome }
            return outcomes
        }
        // Damage first, in row order, as a check of every row before any decode would find it.
        var decoded: [DecodedChunk<Entity>] = []
        decoded.reserveCapacity(outcomes.count)
        for case let outcome? in outcomes { decoded.append(try outcome.get()) }
        return try entities(from: decoded, location)
    }

    /// Joins the chunks in order, once the index's count agrees and every row decoded.
    private func entities<Entity>(from chunks: [DecodedChunk<Entity>], _ location: String) throws -> [Entity]
    {
        try checkCount(location: location)
        if let failure = chunks.lazy.compactMap(\.decodingFailure).first { throw failure }
        if chunks.count == 1 { return chunks[0].entities }
        var entities: [Entity] = []
        entities.reserveCapacity(rows.count)
        for chunk in chunks { entities.append(contentsOf: chunk.entities) }
        return entities
    }

    /// The entities of the rows in `range`, each checked first; once a row does not decode,
    /// the rest are only checked, so damage further on is still found.
    ///
    /// - Throws: `RepositoryError` `corrupted` for the first damaged row of the range.
    private func decodedChunk<Entity>(
        _ range: Range<Int>, location: String, decode: (SQLiteRow) throws -> Entity
    ) throws -> DecodedChunk<Entity> {
        var chunk = DecodedChunk<Entity>()
        chunk.entities.reserveCapacity(range.count)
        for index in range {
            let row = try verifiedRow(at: index, location: location)
            guard chunk.decodingFailure == nil else { continue }
            do {
                chunk.entities.append(try decode(row))
            } catch {
                chunk.decodingFailure = error
            }
        }
        return chunk
    }

    /// The row at `index`, once its checksum matches and its `seq` is larger than the one
    /// before it.
    private func verifiedRow(at index: Int, location: String) throws -> SQLiteRow {
        let stored = rows[index]
        let row = try stored.verified(location: location)
        if index > rows.startIndex, stored.seq <= rows[index - 1].seq {
            throw stored.damage(
                "it comes after the row with seq \(rows[index - 1].seq) in the table", location: location)
        }
        return row
    }

    private func checkCount(location: String) throws {
        guard rows.count == indexedCount else {
            throw RepositoryError.corrupted(
                "The table gave \(rows.count) rows but its ID index holds \(indexedCount) entries: a page of one of them is damaged",
                location: location)
        }
    }

    /// `0..<count` split into one range per processor when `count` reaches
    /// ``parallelThreshold``, else one range.
    static func chunks(of count: Int) -> [Range<Int>] {
        let processors = ProcessInfo.processInfo.activeProcessorCount
        guard count >= parallelThreshold else { return [0..<count] }
        return ParallelChunks.ranges(count: count, minimumChunk: parallelThreshold / max(processors, 1))
    }
}

/// The entities of one chunk of a scan, and the first error decoding met in it.
private struct DecodedChunk<Entity> {
    var entities: [Entity] = []
    var decodingFailure: (any Error)?
}

extension DecodedChunk: Sendable where Entity: Sendable {}
