import CPostgres
import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport

extension BenchmarkRun {
    /// Figure 8: `PostgresRepository` saves against raw libpq upserts of the same rows, with
    /// one writer and with four, and the repository's four writers against its one.
    ///
    /// Both sides write to a private server this run starts (`initdb` in a temporary
    /// directory, `fsync` on, as a production server runs), take turns, and encode the same
    /// JSON. The baseline is the plain upsert a hand-written data layer would send: no change
    /// log and no notification. The repository's saves also log each change for the feed, and
    /// announce it to the other instances after the commit (``PostgresOptions/notifiesChanges``).
    /// With four writers the repository has a pool of four connections, and the baseline four
    /// connections on four threads. Without PostgreSQL binaries on the machine the section is
    /// skipped, saying why.
    func postgresFigures() async throws -> [Figure] {
        let server: PostgresTestServer
        do {
            server = try await PostgresTestServer.start(durable: true)
        } catch {
            FileHandle.standardError.write(Data("skipping the PostgreSQL figures: \(error)\n".utf8))
            return []
        }
        defer { server.stop() }
        let count = quick ? 100 : 1_000
        let writers = 4
        let store = try await PostgresRepository<BenchmarkEntity>(
            connectionString: server.connectionString,
            options: PostgresOptions(tableName: "bench", poolSize: writers))
        // A listener in another instance, so every notification is delivered as in a service.
        let listening = try await PostgresRepository<BenchmarkEntity>(
            connectionString: server.connectionString, options: PostgresOptions(tableName: "bench"))
        let heard = Task {
            var count = 0
            for await _ in listening.changes() { count += 1 }
            return count
        }
        // The baseline's table: made by the repository, so it has the same shape and index.
        try await PostgresRepository<BenchmarkEntity>(
            connectionString: server.connectionString, options: PostgresOptions(tableName: "raw")
        ).close()
        let raws = try (0..<writers).map { _ in
            try RawPostgres(conninfo: server.connectionString, table: "raw")
        }

        let (single, rawSingle) = try await Measurement.interleaved(
            repetitions: repetitions,
            {
                for id in 0..<count { try await store.save(.make(id)) }
                return count
            },
            {
                for id in 0..<count { try raws[0].save(.make(id)) }
                return count
            })
        let share = count / writers
        let (parallel, rawParallel) = try await Measurement.interleaved(
            repetitions: repetitions,
            {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<writers {
                        group.addTask {
                            for id in (writer * share)..<((writer + 1) * share) {
                                try await store.save(.make(id))
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                return share * writers
            },
            {
                try await RawPostgres.onThreads(raws) { writer, raw in
                    for id in (writer * share)..<((writer + 1) * share) { try raw.save(.make(id)) }
                }
                return share * writers
            })
        await store.close()
        await listening.close()
        let notifications = await heard.value
        return [
            .cost(
                8, "PostgresRepository save, 1 writer", measured: single, baseline: rawSingle,
                baselineName: "raw libpq upsert, no log, no notification", target: 1.3,
                note: "fsync on; one commit per save"),
            .speed(
                8, "PostgresRepository saves, \(writers) writers", measured: parallel, baseline: rawParallel,
                baselineName:
                    "raw libpq upserts, \(writers) connections on \(writers) threads, no notification",
                target: 0.8,
                note: "rate, higher is better; another instance heard \(notifications) notifications"),
            .speed(
                8, "PostgresRepository saves, \(writers) writers against its 1", measured: parallel,
                baseline: single, baselineName: "the repository's own 1 writer", target: 1.5,
                note: "rate, higher is better: notifications no longer serialise the commits"),
        ]
    }
}

/// The baseline: one libpq connection running a plain upsert of the entity's JSON (dates
/// as the repository writes them) as a prepared statement, blocking the calling thread.
final class RawPostgres: @unchecked Sendable {
    // @unchecked: each instance is used by one thread at a time.
    private let connection: OpaquePointer
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = InternetDate.encodingStrategy(.fixedNanoseconds)
        return encoder
    }()

    init(conninfo: String, table: String) throws {
        guard let connection = PQconnectdb(conninfo), PQstatus(connection) == CONNECTION_OK else {
            throw BenchmarkFailure(description: "raw libpq could not connect to \(conninfo)")
        }
        self.connection = connection
        let sql = """
            INSERT INTO "\(table)" (id, body, version) VALUES ($1, $2, 1) \
            ON CONFLICT (id) DO UPDATE SET body = excluded.body, version = "\(table)".version + 1
            """
        let types: [UInt32] = [20, 3802]  // bigint, jsonb (sent as text)
        try check(PQprepare(connection, "upsert", sql, 2, types))
    }

    deinit { PQfinish(connection) }

    func save(_ entity: BenchmarkEntity) throws {
        let id = withUnsafeBytes(of: Int64(entity.id).bigEndian) { Array($0) }
        var body = try encoder.encode(entity)
        body.append(0)  // a text parameter is read up to its NUL
        try id.withUnsafeBytes { idBytes in
            try body.withUnsafeBytes { bodyBytes in
                let values: [UnsafePointer<CChar>?] = [
                    idBytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                    bodyBytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                ]
                let lengths: [Int32] = [8, Int32(body.count - 1)]
                let formats: [Int32] = [1, 0]
                try check(PQexecPrepared(connection, "upsert", 2, values, lengths, formats, 1))
            }
        }
    }

    private func check(_ result: OpaquePointer?) throws {
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw BenchmarkFailure(description: "raw libpq: \(String(cString: PQerrorMessage(connection)))")
        }
    }

    /// Runs `body` for each connection on a thread of its own, and returns when all are done.
    static func onThreads(
        _ raws: [RawPostgres], _ body: @escaping @Sendable (Int, RawPostgres) throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, raw) in raws.enumerated() {
                group.addTask {
                    try await withCheckedThrowingContinuation {
                        (continuation: CheckedContinuation<Void, any Error>) in
                        Thread.detachNewThread { continuation.resume(with: Result { try body(index, raw) }) }
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

/// A baseline that could not run.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
}
