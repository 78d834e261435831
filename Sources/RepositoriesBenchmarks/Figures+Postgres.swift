import CPostgres
import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport

extension BenchmarkRun {
    /// Figure 8: `PostgresRepository` against raw libpq running the same prepared statement
    /// (the upsert with its change-log entry and its notification), with one writer and with
    /// eight.
    ///
    /// Both sides write to a private server this run starts (`initdb` in a temporary
    /// directory, `fsync` on, as a production server runs), take turns, and encode the same
    /// JSON. With eight writers the repository has a pool of eight connections, and the
    /// baseline eight connections on eight threads. Without PostgreSQL binaries on the machine
    /// the section is skipped, saying why.
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
        let writers = 8
        let store = try await PostgresRepository<BenchmarkEntity>(
            connectionString: server.connectionString,
            options: PostgresOptions(tableName: "bench", poolSize: writers))
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
        return [
            .cost(
                8, "PostgresRepository save, 1 writer", measured: single, baseline: rawSingle,
                baselineName: "raw libpq, same prepared statement", target: 1.3,
                note: "fsync on; one commit per save"),
            .speed(
                8, "PostgresRepository saves, 8 writers", measured: parallel, baseline: rawParallel,
                baselineName: "raw libpq, 8 connections on 8 threads", target: 1 / 1.3,
                note: "pool of 8 connections; rate, higher is better"),
        ]
    }
}

/// The baseline: one libpq connection running the repository's upsert (with the change
/// feed's log entry) as a prepared statement, with binary parameters, blocking the calling
/// thread.
final class RawPostgres: @unchecked Sendable {
    // @unchecked: each instance is used by one thread at a time.
    private let connection: OpaquePointer
    private let encoder = JSONEncoder()

    init(conninfo: String, table: String) throws {
        guard let connection = PQconnectdb(conninfo), PQstatus(connection) == CONNECTION_OK else {
            throw BenchmarkFailure(description: "raw libpq could not connect to \(conninfo)")
        }
        self.connection = connection
        let sql = """
            WITH w AS (INSERT INTO "\(table)" (id, body, version) VALUES ($1, $2, 1) \
            ON CONFLICT (id) DO UPDATE SET body = excluded.body, version = "\(table)".version + 1 RETURNING id), \
            l AS (INSERT INTO "\(table)_log" (id, xid, deleted, at) SELECT id, pg_current_xact_id(), false, now() FROM w \
            ON CONFLICT (id) DO UPDATE SET xid = excluded.xid, change = DEFAULT, deleted = excluded.deleted, \
            at = excluded.at) \
            SELECT pg_notify('\(table)_changes', CASE WHEN octet_length(p) <= 7900 THEN p ELSE '*' END) \
            FROM (SELECT json_agg(id)::text AS p FROM w) AS changed WHERE p IS NOT NULL
            """
        let types: [UInt32] = [20, 17]
        try check(PQprepare(connection, "upsert", sql, 2, types))
    }

    deinit { PQfinish(connection) }

    func save(_ entity: BenchmarkEntity) throws {
        let id = withUnsafeBytes(of: Int64(entity.id).bigEndian) { Array($0) }
        let body = try encoder.encode(entity)
        try id.withUnsafeBytes { idBytes in
            try body.withUnsafeBytes { bodyBytes in
                let values: [UnsafePointer<CChar>?] = [
                    idBytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                    bodyBytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                ]
                let lengths: [Int32] = [8, Int32(body.count)]
                let formats: [Int32] = [1, 1]
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
