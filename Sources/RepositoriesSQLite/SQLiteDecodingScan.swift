import Dispatch
import Foundation
import Repositories
import Synchronization

/// Every row of a table in `seq` order, checked and decoded while SQLite is still reading
/// the rest: what `fetchAll` runs.
///
/// The thread that steps the statement hands each full batch of rows to a worker on the
/// global queue as soon as it has it, so the checksums and the decoding of the first rows
/// overlap the reading of the later ones. Once the statement is done, that thread decodes
/// what the workers have not taken yet, then waits for them. Reading alone is about a third
/// of what decoding costs, so on two cores a read costs little more than its decoding split
/// in two.
///
/// The outcome is the one a check of every row, then a decode of every row, in order, would
/// give: damage anywhere (the first damaged row, in `seq` order) before a row that does not
/// decode (the first such row); and a table whose `id` index holds a different number of
/// entries than the rows read is damaged (see ``SQLiteTableScan``).
final class SQLiteDecodingScan<Entity: Sendable>: Sendable {
    /// How many rows one batch holds: few enough that the workers start early, enough that
    /// handing a batch over costs little beside decoding it.
    static var batchSize: Int { 1_024 }

    private let location: String
    private let decode: @Sendable (SQLiteRow) throws -> Entity
    private let state = Mutex(State())
    /// The batches being decoded, by a worker or by the reading thread.
    private let inProgress = DispatchGroup()

    /// The batches read so far, the next one nobody has claimed, and each one's outcome.
    private struct State {
        var batches: [Batch] = []
        var nextUnclaimed = 0
        var outcomes: [Int: Result<DecodedBatch, any Error>] = [:]
    }

    /// Rows read one after another, and the `seq` of the row read just before them.
    private struct Batch: Sendable {
        var rows: [SQLiteStoredRow]
        var previousSeq: Int64?
    }

    /// The entities of one batch, and the first error decoding met in it.
    private struct DecodedBatch: Sendable {
        var entities: [Entity] = []
        var decodingFailure: (any Error)?
    }

    private init(location: String, decode: @escaping @Sendable (SQLiteRow) throws -> Entity) {
        self.location = location
        self.decode = decode
    }

    /// Reads every row of `table` on `connection` in one read transaction, checks and
    /// decodes each with `decode`, and returns the entities in `seq` order.
    ///
    /// - Throws: `RepositoryError` `corrupted` for the first damaged row or a count the `id`
    ///   index disagrees with; otherwise the first error `decode` throws; or what SQLite
    ///   throws while reading (after every worker has finished).
    static func entities(
        of table: SQLiteTable, on connection: SQLiteConnection, location: String,
        decode: @escaping @Sendable (SQLiteRow) throws -> Entity
    ) throws -> [Entity] {
        let scan = SQLiteDecodingScan(location: location, decode: decode)
        let (rowCount, indexedCount): (Int, Int64)
        do {
            (rowCount, indexedCount) = try connection.transaction(.deferred) {
                let rowCount = try scan.read(table, on: connection)
                return (rowCount, try connection.integer(table.count) ?? 0)
            }
        } catch {
            // No worker may outlive the read; what they have not begun is not worth decoding.
            scan.finish(decodingTheRest: false)
            throw error
        }
        scan.finish(decodingTheRest: true)
        return try scan.entities(rowCount: rowCount, indexedCount: Int(indexedCount))
    }

    /// Steps through the table, handing each full batch to a worker; returns how many rows
    /// it read.
    private func read(_ table: SQLiteTable, on connection: SQLiteConnection) throws -> Int {
        try connection.withStatement(table.selectAll) { statement in
            var rowCount = 0
            var batch: [SQLiteStoredRow] = []
            batch.reserveCapacity(Self.batchSize)
            var previousSeq: Int64?
            while try statement.step() {
                batch.append(SQLiteStoredRow(of: statement))
                rowCount += 1
                if batch.count == Self.batchSize {
                    let last = batch[batch.count - 1].seq
                    hand(Batch(rows: batch, previousSeq: previousSeq))
                    previousSeq = last
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { enqueue(Batch(rows: batch, previousSeq: previousSeq)) }
            return rowCount
        }
    }

    /// Adds `batch` and starts a worker that decodes the next unclaimed batch.
    private func hand(_ batch: Batch) {
        enqueue(batch)
        DispatchQueue.global().async { [self] in _ = decodeNextUnclaimed() }
    }

    private func enqueue(_ batch: Batch) {
        state.withLock { $0.batches.append(batch) }
    }

    /// Decodes the oldest batch nobody has claimed; `false` when there is none.
    private func decodeNextUnclaimed() -> Bool {
        let claimed: (Int, Batch)? = state.withLock { state in
            guard state.nextUnclaimed < state.batches.count else { return nil }
            defer { state.nextUnclaimed += 1 }
            inProgress.enter()
            return (state.nextUnclaimed, state.batches[state.nextUnclaimed])
        }
        guard let (number, batch) = claimed else { return false }
        defer { inProgress.leave() }
        let outcome = Result { try decoded(batch) }
        state.withLock { state in
            state.outcomes[number] = outcome
            // The rows are not needed once decoded: a large read holds its bodies and its
            // entities both only for the batches in flight.
            state.batches[number].rows = []
        }
        return true
    }

    /// Decodes what no worker has claimed on this thread (or, when `decodingTheRest` is
    /// `false`, leaves it), then waits for the workers.
    private func finish(decodingTheRest: Bool) {
        if decodingTheRest {
            while decodeNextUnclaimed() {}
        } else {
            state.withLock { $0.nextUnclaimed = $0.batches.count }
        }
        // Only the batches being decoded are waited for, never a worker that has not started:
        // the global queue's threads may all be busy (they may be the ones Swift's tasks run
        // on), and it adds one only after about a second. A worker that starts later finds
        // nothing unclaimed and ends.
        inProgress.wait()
    }

    /// The entities of `batch`, each row checked first; once a row does not decode, the rest
    /// are only checked, so damage further on is still found.
    ///
    /// - Throws: `RepositoryError` `corrupted` for the first damaged row of the batch.
    private func decoded(_ batch: Batch) throws -> DecodedBatch {
        var result = DecodedBatch()
        result.entities.reserveCapacity(batch.rows.count)
        var previousSeq = batch.previousSeq
        for stored in batch.rows {
            let row = try stored.verified(after: previousSeq, location: location)
            previousSeq = stored.seq
            guard result.decodingFailure == nil else { continue }
            do {
                result.entities.append(try decode(row))
            } catch {
                result.decodingFailure = error
            }
        }
        return result
    }

    /// Joins the batches in order: damage first, then the count, then the first row that did
    /// not decode.
    private func entities(rowCount: Int, indexedCount: Int) throws -> [Entity] {
        let (batchCount, outcomes) = state.withLock { ($0.batches.count, $0.outcomes) }
        let decoded = try (0..<batchCount).map { number in
            guard let outcome = outcomes[number] else {
                preconditionFailure("batch \(number) of the scan was never decoded")
            }
            return try outcome.get()
        }
        try SQLiteTableScan.checkCount(rowCount, indexed: indexedCount, location: location)
        if let failure = decoded.lazy.compactMap(\.decodingFailure).first { throw failure }
        if decoded.count == 1 { return decoded[0].entities }
        var entities: [Entity] = []
        entities.reserveCapacity(rowCount)
        for batch in decoded { entities.append(contentsOf: batch.entities) }
        return entities
    }
}
