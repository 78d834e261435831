import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesPostgres
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A note whose every edit is told apart by its title.
private struct Card: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
}

/// `PostgresRepository`'s keyed writes (the idempotency key kept in the write's own
/// statement), and `SyncEndpoint` over it: two devices syncing through one endpoint and one
/// PostgreSQL, with answers lost and the endpoint restarted, end where the server is, and the
/// server applied every change once.
@Suite(.serialized) struct PostgresSyncEndpointTests {
    /// A key applied before answers from its record, after a restart of the service too, and
    /// a create of a held ID or a delete of an absent one is recorded as what it did.
    @Test func aKeyIsAppliedOnceAcrossARestart() async throws {
        let store = try await PostgresStores.make(Card.self)
        let first = try await store.apply(
            .save(Card(id: 1, title: "first")), idempotencyKey: "k1", fingerprint: "PUT /1")
        #expect(first.outcome == .created && !first.replayed && first.stored?.title == "first")
        try await store.save(Card(id: 1, title: "changed since"))
        await store.close()

        let reopened = try await PostgresStores.make(Card.self, table: store.tableName)
        let again = try await reopened.apply(
            .save(Card(id: 1, title: "first")), idempotencyKey: "k1", fingerprint: "PUT /1")
        #expect(again.outcome == .created && again.replayed && again.stored?.title == "first")
        #expect(try await reopened.fetch(id: 1)?.title == "changed since", "not applied again")
        let reused = try await reopened.apply(.delete(1), idempotencyKey: "k1", fingerprint: "DELETE /1")
        #expect(reused.replayed && reused.fingerprint == "PUT /1")
        #expect(try await reopened.fetch(id: 1) != nil)

        let refused = try await reopened.apply(
            .create(Card(id: 1, title: "second")), idempotencyKey: "k2", fingerprint: "POST")
        #expect(refused.outcome == .alreadyExists && refused.stored == nil)
        let deleted = try await reopened.apply(.delete(1), idempotencyKey: "k3", fingerprint: "DELETE /1")
        #expect(deleted.outcome == .deleted)
        let absent = try await reopened.apply(.delete(1), idempotencyKey: "k4", fingerprint: "DELETE /1")
        #expect(absent.outcome == .absent)
        #expect(try await reopened.pruneIdempotencyKeys(olderThan: .seconds(3_600)) == 0)
        #expect(try await reopened.pruneIdempotencyKeys(olderThan: .zero) == 4)
        await reopened.close()
    }

    /// One new key sent from many connections at once is applied once; creates of one ID under
    /// different keys at once create it once.
    @Test func racingRequestsApplyOnce() async throws {
        let store = try await PostgresStores.make(Card.self, poolSize: 8)
        let replays = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    try await store.apply(
                        .save(Card(id: 5, title: "once")), idempotencyKey: "same", fingerprint: "PUT /5"
                    ).replayed
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(replays.filter { !$0 }.count == 1)
        let creates = try await withThrowingTaskGroup(of: KeyedWriteOutcome.self) { group in
            for index in 0..<32 {
                group.addTask {
                    try await store.apply(
                        .create(Card(id: 6, title: "by \(index)")), idempotencyKey: "create-\(index)",
                        fingerprint: "POST"
                    ).outcome
                }
            }
            return try await group.reduce(into: [KeyedWriteOutcome]()) { $0.append($1) }
        }
        #expect(creates.filter { $0 == .created }.count == 1)
        #expect(creates.filter { $0 == .alreadyExists }.count == 31)
        let page = try await store.changes(since: nil, limit: 10)
        #expect(Set(page.saved.map(\.id)) == [5, 6])
        await store.close()
    }

    /// Two devices (a `FileRepository` and its outbox each) edit offline and sync through one
    /// endpoint over one PostgreSQL table, while a fifth of the answers are lost after the
    /// endpoint applied the request and the endpoint is restarted (a new repository and
    /// endpoint on the same table) between rounds. Both end where the server is, and no change
    /// was applied twice: every edit has a title of its own, and no two applied requests stored
    /// one title.
    @Test func twoDevicesConvergeThroughTheEndpointOverPostgres() async throws {
        let table = PostgresStores.tableName("endpoint")
        let endpoint = Mutex(
            SyncEndpoint(store: try await PostgresStores.make(Card.self, table: table, poolSize: 4)))
        let transport = LosingTransport(seed: 7) { request in
            let current = endpoint.withLock { $0 }
            return try await SyncEndpointTransport(current, at: "/cards").send(request)
        }
        let directory = try TemporaryDirectory()
        // Retried as an app would: a lost answer is sent again at once, with its key.
        let remote = HTTPRepository<Card>(
            baseURL: URL(string: "https://sync.example/cards")!,
            configuration: .init(changeFeed: .changesEndpoint()), transport: transport
        ).retrying(RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(1), seed: 1))
        func device(_ name: String) async throws
            -> OfflineFirstRepository<RetryingRepository<HTTPRepository<Card>>, FileRepository<Card>>
        {
            remote.offlineFirst(
                local: try await FileRepository<Card>(fileURL: directory.file("\(name).store")),
                outbox: try await Outbox<Card>(fileURL: directory.file("\(name).outbox")),
                conflicts: .lastWriterWins, automaticSync: nil)
        }
        let devices = [try await device("phone"), try await device("tablet")]
        var random = SeededRandomNumberGenerator(seed: 2_026)
        var edits = 0
        for round in 0..<6 {
            for (index, device) in devices.enumerated() {
                for _ in 0..<15 {
                    let id = Int.random(in: 1...25, using: &random)
                    edits += 1
                    if Int.random(in: 0..<5, using: &random) == 0 {
                        try await device.delete(id: id)
                    } else {
                        try await device.save(Card(id: id, title: "device \(index) edit \(edits)"))
                    }
                }
                do { _ = try await device.sync() } catch let error as RepositoryError
                    where error.code == .unavailable
                {}
            }
            if round % 2 == 1 {
                // The service restarts: a new repository and endpoint on the same table.
                let old = endpoint.withLock { $0 }
                await old.store.close()
                let restarted = try await PostgresStores.make(Card.self, table: table, poolSize: 4)
                endpoint.withLock { $0 = SyncEndpoint(store: restarted) }
            }
        }
        transport.stopLosing()
        for _ in 0..<2 {
            for device in devices { _ = try await device.sync() }
        }
        let store = endpoint.withLock { $0 }.store
        let server = try await store.fetchAll().sorted { $0.id < $1.id }
        for device in devices {
            #expect(try await device.fetchAll().sorted { $0.id < $1.id } == server)
            #expect(try await device.snapshot(Query()).pendingIDs.isEmpty)
        }
        #expect(transport.lost > 0, "answers were lost on the way")
        #expect(transport.replayed > 0, "writes sent again were answered from their keys")
        let applied = try await PostgresTestServer.shared().psql(
            "SELECT convert_from(body, 'UTF8') FROM \"\(table)_keys\" WHERE outcome IN ('created', 'replaced')"
        ).split(separator: "\n").map { try JSONDecoder().decode(Card.self, from: Data($0.utf8)).title }
        #expect(
            Set(applied).count == applied.count,
            "a change applied twice: \(applied.count - Set(applied).count)")
        #expect(applied.count > 0)
        await store.close()
    }
}

/// Hands requests to `send`, and loses a fifth of the answers after the request was served,
/// as a dropped connection does.
private final class LosingTransport: HTTPTransport {
    private let send: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)
    private let state: Mutex<(random: SeededRandomNumberGenerator, losing: Bool, lost: Int, replayed: Int)>

    init(seed: UInt64, send: @escaping @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)) {
        self.send = send
        self.state = Mutex((SeededRandomNumberGenerator(seed: seed), true, 0, 0))
    }

    /// How many answers were lost.
    var lost: Int { state.withLock { $0.lost } }

    /// How many writes the endpoint answered from their key's record.
    var replayed: Int { state.withLock { $0.replayed } }

    func stopLosing() { state.withLock { $0.losing = false } }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let answer = try await send(request)
        let lose = state.withLock { state in
            if answer.1.value(forHTTPHeaderField: "Idempotent-Replayed") == "true" { state.replayed += 1 }
            guard state.losing, Int.random(in: 0..<5, using: &state.random) == 0 else { return false }
            state.lost += 1
            return true
        }
        if lose { throw URLError(.networkConnectionLost) }
        return answer
    }
}
