import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// Optimistic concurrency: versions as tags, writes on a version, and `update(id:_:)`, which
/// loses no increment however many instances make them, while their connections are cut.
@Suite struct PostgresVersionTests {
    struct Stock: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var quantity: Int
    }

    @Test func aWriteOnAnOldVersionIsAConflictAndWritesNothing() async throws {
        let store = try await PostgresStores.make(Stock.self)
        try await store.save(Stock(id: 1, quantity: 10))
        let first = try #require(try await store.fetchTagged(id: 1))
        #expect(first.tag == "\"1\"" && first.entity.quantity == 10)
        try await store.save(Stock(id: 1, quantity: 9), ifMatch: try #require(first.tag))
        #expect(try await store.fetchTagged(id: 1)?.tag == "\"2\"")

        let stale = try await #require(throws: RepositoryError.self) {
            try await store.save(Stock(id: 1, quantity: 100), ifMatch: "\"1\"")
        }
        #expect(stale.code == .conflict && stale.id == "1", "\(stale)")
        await #expect(throws: RepositoryError.self) { try await store.delete(id: 1, ifMatch: "W/\"1\"") }
        #expect(try await store.fetch(id: 1)?.quantity == 9, "nothing written on the old version")

        try await store.delete(id: 1, ifMatch: "2")
        #expect(try await store.fetch(id: 1) == nil)
        try await store.delete(id: 1, ifMatch: "2")  // already gone: no error
        await #expect(throws: RepositoryError.self) {
            try await store.save(Stock(id: 1, quantity: 1), ifMatch: "\"2\"")
        }
        #expect(try await store.fetch(id: 1) == nil, "a deleted row is not written back on its old version")

        try await store.saveIfAbsent(Stock(id: 2, quantity: 5))
        let taken = try await #require(throws: RepositoryError.self) {
            try await store.saveIfAbsent(Stock(id: 2, quantity: 6))
        }
        #expect(taken.code == .conflict)
        #expect(try await store.fetch(id: 2)?.quantity == 5)
        let foreign = try await #require(throws: RepositoryError.self) {
            try await store.save(Stock(id: 2, quantity: 6), ifMatch: "\"abc\"")
        }
        #expect(foreign.code == .rejected, "\(foreign)")
        await store.close()
    }

    @Test func updateRefusesWhatItCannotDoAndWritesNothing() async throws {
        let store = try await PostgresStores.make(Stock.self)
        let absent = try await #require(throws: RepositoryError.self) {
            try await store.update(id: 9) { $0.quantity += 1 }
        }
        #expect(absent.code == .notFound)
        try await store.save(Stock(id: 9, quantity: 0))
        struct OutOfStock: Error {}
        await #expect(throws: OutOfStock.self) {
            try await store.update(id: 9) { stock in
                guard stock.quantity > 0 else { throw OutOfStock() }
                stock.quantity -= 1
            }
        }
        let renamed = try await #require(throws: RepositoryError.self) {
            try await store.update(id: 9) { $0.id = 10 }
        }
        #expect(renamed.code == .rejected)
        #expect(try await store.fetchTagged(id: 9)?.tag == "\"1\"", "nothing written")
        #expect(try await store.fetch(id: 10) == nil)
        await store.close()
    }

    /// The test: two instances each read, add one and write, on one row (300 times
    /// each here: under a loaded CI machine an update's two hops cost far more than alone).
    /// Plain `save` lost most increments; `update` loses none, also while the server
    /// terminates the instances' connections (a failover, an idle reaper) after every 50.
    @Test func twoInstancesIncrementingLoseNoUpdateWhileConnectionsAreCut() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("increments")
        let application = PostgresStores.tableName("app")
        func instance() async throws -> PostgresRepository<Stock> {
            try await PostgresStores.make(Stock.self, table: table, poolSize: 2, applicationName: application)
        }
        let instances = [try await instance(), try await instance()]
        try await instances[0].save(Stock(id: 1, quantity: 37))
        // The cuts follow the progress, not the clock: after every 50 increments, however slow
        // a loaded machine makes them, so each update meets cuts and yet the run moves on.
        let watcher = try await PostgresStores.make(Stock.self, table: table, poolSize: 1)
        let cutting = Task {
            var terminated = 0
            var cutAt = 37
            // Cancelled once the increments are done, whatever it was doing then.
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: .milliseconds(20))
                    guard let now = try await watcher.fetch(id: 1)?.quantity, now >= cutAt + 50 else {
                        continue
                    }
                    cutAt = now
                    let cut = try await server.psql(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(application)'"
                    )
                    terminated += Int(cut) ?? 0
                } catch is CancellationError {
                    break
                }
            }
            return terminated
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in instances {
                group.addTask {
                    for _ in 0..<300 { try await store.update(id: 1) { $0.quantity += 1 } }
                }
            }
            try await group.waitForAll()
        }
        cutting.cancel()
        let terminated = try await cutting.value
        #expect(try await instances[0].fetch(id: 1)?.quantity == 37 + 600)
        #expect(terminated > 0, "connections were cut while the increments ran")
        for store in instances { await store.close() }
        await watcher.close()
    }
}

/// Commits whose answer is lost, on a private server (its synchronous standby setting holds
/// every commit), one case at a time.
@Suite(.serialized) struct PostgresLostCommitTests {
    typealias Stock = PostgresVersionTests.Stock

    /// The private server the cases share, started once.
    private static let server = Task { try await PostgresTestServer.start() }

    /// The connection lost while the commit was on its way, after the server committed: the
    /// write asks PostgreSQL whether its transaction committed, and neither runs again nor
    /// reports a conflict with itself.
    /// The commit is held on the server by a synchronous standby that does not exist (the
    /// transaction commits locally, then waits for it), and the backend terminated there.
    @Test(arguments: ["update", "save on a version", "transaction"])
    func aWriteWhoseCommitAnswerWasLostIsNotAppliedTwice(_ write: String) async throws {
        let server = try await PostgresTestServer.start()
        let store = try await PostgresRepository<Stock>(
            connectionString: server.connectionString,
            options: PostgresOptions(tableName: "stock", poolSize: 2))
        try await store.save(Stock(id: 1, quantity: 0))
        try await server.psql("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
        try await server.psql("SELECT pg_reload_conf()")
        let updating = Task {
            if write == "update" { return try await store.update(id: 1) { $0.quantity += 1 } }
            if write == "transaction" {
                return try await store.transaction { tx in
                    var stock = try #require(try await tx.fetch(id: 1))
                    stock.quantity += 1
                    try await tx.save(stock)
                    return stock
                }
            }
            // A conditional write sent again after it committed would meet its own version.
            try await store.save(Stock(id: 1, quantity: 1), ifMatch: "\"1\"")
            return Stock(id: 1, quantity: 1)
        }
        var waiting = ""
        while waiting.isEmpty {
            try await Task.sleep(for: .milliseconds(20))
            waiting = try await server.psql("SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep'")
        }
        try await server.psql("SELECT pg_terminate_backend(\(waiting))")
        try await server.psql("ALTER SYSTEM RESET synchronous_standby_names")
        try await server.psql("SELECT pg_reload_conf()")
        let written = try await updating.value
        #expect(written.quantity == 1)
        #expect(try await store.fetch(id: 1)?.quantity == 1, "committed once, not run again")
        await store.close()
    }
}
