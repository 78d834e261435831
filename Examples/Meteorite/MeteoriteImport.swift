import ExampleSupport
import Repositories

/// The article's `saveToDB`, done in batches: every meteorite the API lists, written to the
/// database `batchSize` at a time, each batch one transaction (all or nothing).
///
/// Saving is an upsert, so the import is idempotent: running it again, after a success or
/// after a failure part-way, leaves the database holding each meteorite once, and finishes
/// what a failed run left out.
struct MeteoriteImport<Database: Repository<Meteorite, Int>> {
    /// What an import did.
    struct Report: Sendable, Equatable {
        /// Meteorites written.
        var saved: Int
        /// Batches written.
        var batches: Int
    }

    /// Where the meteorites go.
    let database: Database
    /// Meteorites per transaction.
    var batchSize = 2_000

    /// Writes `meteorites`, calling `progress` (on the main actor, for a screen) with the
    /// number written after each batch.
    ///
    /// - Throws: a `RepositoryError` naming the batch that failed and how many meteorites
    ///   were saved before it (the failed batch wrote nothing), with the database's error as
    ///   its cause; `CancellationError` between batches when the task is cancelled.
    func run(
        _ meteorites: [Meteorite], progress: @MainActor (Int) -> Void = { _ in }
    ) async throws -> Report {
        precondition(batchSize > 0, "A batch holds at least one meteorite")
        let batches = (meteorites.count + batchSize - 1) / batchSize
        var saved = 0
        for (number, start) in stride(from: 0, to: meteorites.count, by: batchSize).enumerated() {
            try Task.checkCancellation()
            let batch = meteorites[start..<min(start + batchSize, meteorites.count)]
            do {
                try await database.save(contentsOf: Array(batch))
            } catch let error as CancellationError {
                throw error
            } catch {
                throw Self.failure(batch: number + 1, of: batches, range: batch.indices, saved: saved, error)
            }
            saved += batch.count
            await progress(saved)
        }
        return Report(saved: saved, batches: batches)
    }

    private static func failure(
        batch: Int, of batches: Int, range: Range<Int>, saved: Int, _ error: any Error
    ) -> RepositoryError {
        let first = Console.grouped(range.lowerBound + 1)
        let last = Console.grouped(range.upperBound)
        return RepositoryError(
            (error as? RepositoryError)?.code ?? .unavailable,
            reason:
                "The import stopped at batch \(batch) of \(batches) (meteorites \(first) to \(last)), "
                + "which wrote nothing; the \(Console.grouped(saved)) before it are saved",
            recovery:
                "Fix the cause and run the import again: it saves each meteorite once, however often it runs",
            record: "batch \(batch)", underlying: error)
    }
}
