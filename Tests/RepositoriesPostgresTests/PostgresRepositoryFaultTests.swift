import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The server going away, connections killed under the repository, and what each leaves.
@Suite struct PostgresRepositoryFaultTests {
    @Test func stoppedServerIsUnavailableThenTheRepositoryRecoversWhenItReturns() async throws {
        // A server of its own: stopping the shared one would fail every other test.
        let server = try await PostgresTestServer.start()
        defer { server.stop() }
        let store = try await PostgresRepository<ConformanceEntity>(
            connectionString: server.connectionString,
            options: PostgresOptions(tableName: "fault", poolSize: 2))
        let feed = ChangeRecorder(store.changes())
        try await feed.waitUntilListening()
        try await store.save(contentsOf: (0..<10).map { .makeWithoutNUL(index: $0, revision: 0) })

        server.stop()
        for operation in ["save", "fetch", "count"] {
            let error = try await #require(throws: RepositoryError.self, "\(operation)") {
                switch operation {
                case "save": try await store.save(.makeWithoutNUL(index: 99, revision: 0))
                case "fetch": _ = try await store.fetch(id: 1)
                default: _ = try await store.count()
                }
            }
            #expect(error.code == .unavailable, "\(operation): \(error)")
            #expect(error.underlying is PostgresError, "\(operation): \(error)")
        }
        try await feed.wait(for: "connection lost") { $0.contains(.everything(.connectionLost)) }

        try await server.launch()
        try await store.save(.makeWithoutNUL(index: 10, revision: 0))
        #expect(try await store.fetchAll().map(\.id) == Array(0...10))
        try await feed.waitUntilListening(times: 2)
        await store.close()
    }

    @Test func terminatedConnectionsAreReplacedAndABatchIsNeverHalfWritten() async throws {
        let server = try await PostgresTestServer.shared()
        let application = PostgresStores.tableName("terminated")
        let store = try await PostgresRepository<ConformanceEntity>(
            connectionString: server.connectionString + " application_name=\(application)",
            options: PostgresOptions(tableName: PostgresStores.tableName(), poolSize: 2))
        let terminate =
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(application)'"
        try await store.save(.makeWithoutNUL(index: 0, revision: 0))
        try await server.psql(terminate)
        // The next call meets the dead connection, and sends its statement again on a new one.
        #expect(try await store.fetch(id: 0)?.revision == 0)
        try await store.save(.makeWithoutNUL(index: 1, revision: 0))

        let batch = (2..<3_002).map { ConformanceEntity.makeWithoutNUL(index: $0, revision: 1) }
        for round in 0..<5 {
            try await store.delete(ids: batch.map(\.id))
            let saving = Task { try await store.save(contentsOf: batch) }
            try await Task.sleep(for: .milliseconds(5 * round))
            try await server.psql(terminate)
            let outcome = await saving.result
            let count = try await store.count()
            #expect(
                count == 2 || count == 2 + batch.count, "round \(round): \(count) rows: a half-written batch")
            if case .success = outcome {
                #expect(count == 2 + batch.count, "round \(round): returned, not stored")
            }
            if case .failure(let error) = outcome {
                #expect((error as? RepositoryError)?.code == .unavailable, "round \(round): \(error)")
            }
        }
        await store.close()
    }

    /// Saves that share statements (``PostgresRepository/save(_:)`` from many tasks) while the
    /// server terminates the connections carrying them: each save that returned is stored, each
    /// that failed says `unavailable`, and none is lost in a statement that was sent again.
    @Test func concurrentSavesKeepTheirOutcomesWhileConnectionsAreTerminated() async throws {
        let server = try await PostgresTestServer.shared()
        let application = PostgresStores.tableName("sharing")
        let table = PostgresStores.tableName()
        let store = try await PostgresRepository<Tally>(
            connectionString: server.connectionString + " application_name=\(application)",
            options: PostgresOptions(tableName: table, poolSize: 4))
        let terminate =
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(application)'"
        let writers = 16
        let each = 40
        let saving = (0..<writers).map { writer in
            Task { () -> [(Int, Result<Void, any Error>)] in
                var outcomes: [(Int, Result<Void, any Error>)] = []
                for index in (writer * each)..<((writer + 1) * each) {
                    let outcome: Result<Void, any Error>
                    do {
                        try await store.save(Tally(id: index, count: 1))
                        outcome = .success(())
                    } catch {
                        outcome = .failure(error)
                    }
                    outcomes.append((index, outcome))
                }
                return outcomes
            }
        }
        for _ in 0..<4 {
            try await Task.sleep(for: .milliseconds(20))
            try await server.psql(terminate)
        }
        var stored = 0
        for task in saving {
            for (index, outcome) in await task.value {
                switch outcome {
                case .success:
                    stored += 1
                    #expect(
                        try await store.fetch(id: index)?.count == 1, "ID \(index) returned, not stored")
                case .failure(let error):
                    #expect((error as? RepositoryError)?.code == .unavailable, "ID \(index): \(error)")
                }
            }
        }
        #expect(stored > 0)
        #expect(try await store.count() >= stored)
        await store.close()
    }

    /// Closing the repository while many saves wait for a shared statement ends every one of
    /// them, and every save after it: each returns (and is stored) or throws `closed`; none is
    /// left waiting.
    // The limit counts from the start, and the shared server may take a while to start on a
    // loaded machine: a CI run took 95 s in all.
    @Test(.timeLimit(.minutes(5))) func closingWhileSavesWaitEndsEveryOne() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName()
        let store = try await PostgresRepository<Tally>(
            connectionString: server.connectionString, options: PostgresOptions(tableName: table, poolSize: 2)
        )
        let saving = (0..<16).map { writer in
            Task { () -> (saved: [Int], errors: [any Error]) in
                var saved: [Int] = []
                var errors: [any Error] = []
                for index in (writer * 200)..<((writer + 1) * 200) {
                    do {
                        try await store.save(Tally(id: index, count: 1))
                        saved.append(index)
                    } catch {
                        errors.append(error)
                    }
                }
                return (saved, errors)
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        await store.close()
        let reopened = try await PostgresRepository<Tally>(
            connectionString: server.connectionString, options: PostgresOptions(tableName: table))
        var savedCount = 0
        var failedCount = 0
        for task in saving {
            let (saved, errors) = await task.value
            savedCount += saved.count
            failedCount += errors.count
            for error in errors {
                #expect((error as? RepositoryError)?.code == .closed, "\(error)")
            }
            if let last = saved.last {
                #expect(try await reopened.fetch(id: last) != nil, "ID \(last) returned, not stored")
            }
        }
        #expect(failedCount > 0, "the repository closed after every save")
        #expect(savedCount > 0)
        #expect(try await reopened.count() >= savedCount)
        await reopened.close()
    }

    /// A pool of one shared by saves that keep coming (they share statements on it), counts
    /// and transactions: every one gets its turn, and every row lands. The sender of shared
    /// saves gives its connection up after a statement when another caller waits; without
    /// that, saves arriving faster than a statement returns would starve the others, which
    /// this test cannot force: `aCallerWaitingForTheConnectionGoesBeforeTheNextSharedStatement`
    /// proves the yield; this one, that the pool is shared.
    @Test func aPoolOfOneIsSharedBySavesCountsAndTransactions() async throws {
        let server = try await PostgresTestServer.shared()
        let store = try await PostgresRepository<Tally>(
            connectionString: server.connectionString,
            options: PostgresOptions(tableName: PostgresStores.tableName(), poolSize: 1))
        // Writers out of step with one another, as a service's requests are, so that saves
        // arrive while every statement is on its way.
        let writers = (0..<16).map { writer in
            Task {
                for index in (writer * 100)..<((writer + 1) * 100) {
                    try await store.save(Tally(id: index, count: 1))
                    try await Task.sleep(for: .microseconds(Int.random(in: 0...2_000)))
                }
            }
        }
        while try await store.count() < 50 { try await Task.sleep(for: .milliseconds(5)) }
        var seen = 0
        for round in 0..<5 {
            try await store.transaction { tx in
                try await tx.save(Tally(id: 100_000 + round, count: 2))
            }
            let count = try await store.count()
            #expect(count > seen, "round \(round): the transaction's row and the writers' are visible")
            seen = count
        }
        for writer in writers { try await writer.value }
        #expect(try await store.count() == 16 * 100 + 5)
        await store.close()
    }

    /// The sender of shared saves gives its connection up when another caller waits, even
    /// while saves keep waiting. Row locks taken by `psql` sessions hold the statements, so
    /// the order is forced: a count that arrives while a shared statement is held runs right
    /// after it, before the saves that queued behind it.
    @Test func aCallerWaitingForTheConnectionGoesBeforeTheNextSharedStatement() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName()
        let store = try await PostgresRepository<Tally>(
            connectionString: server.connectionString, options: PostgresOptions(tableName: table, poolSize: 1)
        )
        try await store.save(contentsOf: [Tally(id: 1, count: 0), Tally(id: 2, count: 0)])
        // A session holding the row `id`'s lock until it is terminated.
        func hold(_ id: Int) async throws -> Process {
            let name = "\(table)_gate\(id)"
            let gate = try server.psqlInBackground(
                "SET application_name = '\(name)'; BEGIN; SELECT 1 FROM \"\(table)\" WHERE id = \(id) FOR UPDATE; "
                    + "SELECT pg_sleep(600)")
            try await eventually("\(name) holds its lock") {
                try await server.psql(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(name)' AND wait_event = 'PgSleep'"
                )
                    == "1"
            }
            return gate
        }
        func release(_ id: Int) async throws {
            _ = try await server.psql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(table)_gate\(id)'"
            )
        }
        func blockedStatements() async throws -> String {
            try await server.psql(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%\(table)%'"
            )
        }
        let gates = [try await hold(1), try await hold(2)]
        defer { for gate in gates { gate.terminate() } }

        // A save sent at once, held by row 1's lock, with the only connection.
        let first = Task { try await store.save(Tally(id: 1, count: 1)) }
        try await eventually("the first save waits for row 1") { try await blockedStatements() == "1" }
        // Two saves wait for it, and go together once it is done: held by row 2's lock.
        let shared = [
            Task { try await store.save(Tally(id: 2, count: 1)) },
            Task { try await store.save(Tally(id: 4, count: 1)) },
        ]
        try await eventually("two saves wait") { store.waitingForTheWriter.saves == 2 }
        try await release(1)
        try await first.value
        try await eventually("the shared statement waits for row 2") {
            try await blockedStatements() == "1" && store.waitingForTheWriter.saves == 0
        }
        // Behind it: one more save, and a count waiting for the connection.
        let later = Task { try await store.save(Tally(id: 5, count: 1)) }
        try await eventually("a save waits") { store.waitingForTheWriter.saves == 1 }
        let counting = Task { try await store.count() }
        try await eventually("the count waits") { store.waitingForTheWriter.connections == 1 }
        try await release(2)
        for save in shared { try await save.value }
        // Rows 1, 2 and 4: the count ran between the shared statement and the next one.
        #expect(try await counting.value == 3)
        try await later.value
        #expect(try await store.count() == 4)
        await store.close()
    }

    /// Waits until `condition` holds, checking every 10 ms for up to a minute; fails naming
    /// `what` otherwise.
    private func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw WaitedTooLong(what: what) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private struct WaitedTooLong: Error, CustomStringConvertible {
        var what: String
        var description: String { "waited a minute for: \(what)" }
    }
}

/// A small entity, so that tests making thousands of saves cost the machine little (a
/// `ConformanceEntity` carries 128 KiB on some indexes).
struct Tally: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var count: Int
}
