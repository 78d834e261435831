import CPostgres
import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesPostgres
import RepositoriesTestSupport
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
        let queries = try await postgresQueryFigure(server)
        return queries + [
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

extension BenchmarkRun {
    /// Figure 15, PostgreSQL: the list screen's "20 highest prices below a threshold" over
    /// 100,000 rows, as a field query against the same query hand-written as a prepared
    /// statement through raw libpq on the same index, both decoding the 20 bodies. The
    /// repository also asks for rows an unaware writer left behind (an index scan of an
    /// empty index) and checks each row's columns against its body.
    func postgresQueryFigure(_ server: PostgresTestServer) async throws -> [Figure] {
        let size = quick ? 10_000 : 100_000
        let store = try await PostgresRepository<PricedItem>(
            connectionString: server.connectionString,
            options: PostgresOptions(tableName: "priced", poolSize: 1))
        for start in stride(from: 0, to: size, by: 5_000) {
            try await store.save(
                contentsOf: (start..<min(start + 5_000, size)).map { PricedItem.make($0, size: size) })
        }
        try await store.analyze()
        let raw = try RawPostgresQuery(conninfo: server.connectionString, table: "priced")
        let queries = quick ? 200 : 2_000
        let highest = Double(size / 2) / 4
        let thresholds = (0..<queries).map { highest * Double(($0 &* 37) % 100 + 1) / 101 }
        for threshold in thresholds.prefix(3) {
            let ours = try await store.fetch(Self.highestBelow(threshold)).map(\.id)
            guard try ours == raw.highestBelow(threshold).map(\.id) else {
                throw BenchmarkFailure(
                    description: "PostgreSQL: the field query and raw libpq disagree at \(threshold)")
            }
        }
        var checksum = 0
        let (measured, baseline) = try await Measurement.interleaved(
            repetitions: repetitions,
            {
                for threshold in thresholds {
                    checksum &+= try await store.fetch(Self.highestBelow(threshold)).count
                }
                return thresholds.count
            },
            {
                for threshold in thresholds { checksum &+= try raw.highestBelow(threshold).count }
                return thresholds.count
            })
        blackHole(checksum)
        let overHTTP = try await listScreenOverHTTP(
            store, thresholds: Array(thresholds.prefix(quick ? 20 : 200)))
        await store.close()
        return [
            .cost(
                15, "PostgresRepository: 20 highest prices below a threshold, \(Self.label(size)) rows",
                measured: measured, baseline: baseline,
                baselineName: "raw libpq prepared statement on the same index, decoding the same JSON",
                target: 2, note: "one connection each"),
            overHTTP,
        ]
    }

    /// Figure 15, HTTP: the same list screen asked of an `HTTPRepository` whose API is
    /// `SyncEndpoint` over that table (every request through the client's and the endpoint's
    /// HTTP handling and JSON, without sockets), with the lookup convention: the rows the
    /// API sends per screen against the 20 it shows (target: at most one page more).
    private func listScreenOverHTTP(_ store: PostgresRepository<PricedItem>, thresholds: [Double])
        async throws
        -> Figure
    {
        let transport = RowCountingTransport(SyncEndpointTransport(SyncEndpoint(store: store), at: "/priced"))
        var configuration = HTTPRepository<PricedItem>.Configuration()
        configuration.queries = .lookups(codePointTextOrder: true, tiebreak: [])
        let api = HTTPRepository<PricedItem>(
            baseURL: URL(string: "https://api.example/priced")!, configuration: configuration,
            transport: transport)
        var shown = 0
        for threshold in thresholds {
            let page = try await api.fetch(Self.highestBelow(threshold))
            guard try await page.map(\.id) == store.fetch(Self.highestBelow(threshold)).map(\.id) else {
                throw BenchmarkFailure(
                    description: "HTTP: the list screen disagrees with the store at \(threshold)")
            }
            shown += page.count
        }
        let (rows, requests) = transport.counts
        return Figure(
            number: 15,
            name: "HTTPRepository over SyncEndpoint (PostgreSQL): rows sent per list screen of 20",
            measured: "\(rows) rows in \(requests) requests for \(thresholds.count) screens",
            baseline: "\(shown) rows shown", ratio: Double(rows) / Double(max(shown, 1)), target: 2,
            goal: .atMost)
    }
}

/// The query baseline: one libpq connection running "the 20 highest prices below a
/// threshold" as a hand-written prepared statement on the `price` column's index, and
/// decoding the bodies, blocking the calling thread.
final class RawPostgresQuery: @unchecked Sendable {
    // @unchecked: used by one thread at a time.
    private let connection: OpaquePointer
    private let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = InternetDate.decodingStrategy
        return decoder
    }()

    init(conninfo: String, table: String) throws {
        connection = try RawPostgres.connect(conninfo)
        let sql = """
            SELECT body::text FROM "\(table)" WHERE price < $1 ORDER BY price DESC NULLS LAST, seq LIMIT 20
            """
        let types: [UInt32] = [701]  // double precision
        try RawPostgres.check(PQprepare(connection, "highest", sql, 1, types), on: connection)
    }

    deinit { PQfinish(connection) }

    func highestBelow(_ threshold: Double) throws -> [PricedItem] {
        let value = withUnsafeBytes(of: threshold.bitPattern.bigEndian) { Array($0) }
        let result = value.withUnsafeBytes { bytes in
            let values: [UnsafePointer<CChar>?] = [bytes.baseAddress?.assumingMemoryBound(to: CChar.self)]
            return PQexecPrepared(connection, "highest", 1, values, [8], [1], 0)
        }
        defer { PQclear(result) }
        try RawPostgres.check(result, on: connection, clearing: false)
        return try (0..<PQntuples(result)).map { row in
            let length = Int(PQgetlength(result, row, 0))
            let data = Data(bytes: PQgetvalue(result, row, 0), count: length)
            return try decoder.decode(PricedItem.self, from: data)
        }
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
        connection = try Self.connect(conninfo)
        let sql = """
            INSERT INTO "\(table)" (id, body, version) VALUES ($1, $2, 1) \
            ON CONFLICT (id) DO UPDATE SET body = excluded.body, version = "\(table)".version + 1
            """
        let types: [UInt32] = [20, 3802]  // bigint, jsonb (sent as text)
        try Self.check(PQprepare(connection, "upsert", sql, 2, types), on: connection)
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
                try Self.check(
                    PQexecPrepared(connection, "upsert", 2, values, lengths, formats, 1), on: connection)
            }
        }
    }

    /// A new connection to `conninfo`.
    static func connect(_ conninfo: String) throws -> OpaquePointer {
        guard let connection = PQconnectdb(conninfo), PQstatus(connection) == CONNECTION_OK else {
            throw BenchmarkFailure(description: "raw libpq could not connect to \(conninfo)")
        }
        return connection
    }

    /// Throws libpq's message unless `result` succeeded; clears it unless told not to.
    static func check(_ result: OpaquePointer?, on connection: OpaquePointer, clearing: Bool = true) throws {
        defer { if clearing { PQclear(result) } }
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

/// A transport that counts the requests it passes on and the rows of the JSON arrays they
/// answer.
final class RowCountingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let tally = Mutex((rows: 0, requests: 0))

    init(_ base: any HTTPTransport) {
        self.base = base
    }

    /// The rows answered and the requests sent so far.
    var counts: (rows: Int, requests: Int) { tally.withLock { $0 } }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (body, response) = try await base.send(request)
        // An answer that is no array holds no rows; the repository reports it as it reads it.
        let rows = (try? JSONSerialization.jsonObject(with: body) as? [Any])?.count ?? 0
        tally.withLock { $0 = (rows: $0.rows + rows, requests: $0.requests + 1) }
        return (body, response)
    }
}
