import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

/// The change feed: what other connections write reaches every other repository on the
/// table, its own writes do not come back, and a cache over it stays coherent.
@Suite struct PostgresChangesTests {
    @Test func writesOfAnotherRepositoryAreReportedInCommitOrder() async throws {
        let writer = try await PostgresStores.make(ConformanceEntity.self)
        let reader = try await PostgresStores.make(ConformanceEntity.self, table: writer.tableName)
        let feed = ChangeRecorder(reader.changes())
        try await feed.waitUntilListening()

        try await writer.save(.makeWithoutNUL(index: 1, revision: 0))
        try await writer.save(contentsOf: [
            .makeWithoutNUL(index: 2, revision: 0), .makeWithoutNUL(index: 3, revision: 0),
        ])
        try await writer.delete(id: 1)
        try await writer.delete(id: 42)  // absent: changes nothing, notifies nothing
        try await writer.delete(ids: [2, 3])
        // Notifications sent while another is on its way carry the IDs of several commits, in
        // the order they committed.
        try await feed.wait(for: "four changes") { _ in feed.changedIDs.count >= 6 }
        try await Task.sleep(for: .milliseconds(200))
        let ids = feed.changedIDs
        try #require(ids.count == 6, "\(feed.changes)")
        #expect(
            ids[0] == 1 && Set(ids[1...2]) == [2, 3] && ids[3] == 1 && Set(ids[4...5]) == [2, 3],
            "\(feed.changes)")
        await writer.close()
        await reader.close()
    }

    @Test func ownWritesAreNotEchoed() async throws {
        let mine = try await PostgresStores.make(Note.self)
        let theirs = try await PostgresStores.make(Note.self, table: mine.tableName)
        let feed = ChangeRecorder(mine.changes())
        try await feed.waitUntilListening()
        try await mine.save(.make(index: 1, revision: 0))
        try await theirs.save(.make(index: 2, revision: 0))
        try await feed.wait(for: "their write") { !$0.dropFirst().isEmpty }
        try await Task.sleep(for: .milliseconds(200))
        #expect(feed.changedIDs == [Note.make(index: 2, revision: 0).id], "\(feed.changes)")
        await mine.close()
        await theirs.close()
    }

    @Test func changesTooLargeToListAndDeleteAllSayEverything() async throws {
        let writer = try await PostgresStores.make(Note.self)
        let reader = try await PostgresStores.make(Note.self, table: writer.tableName)
        let feed = ChangeRecorder(reader.changes())
        try await feed.waitUntilListening()
        try await writer.save(contentsOf: (0..<6_000).map { Note.make(index: $0, revision: 0) })
        try await feed.wait(for: "many entities") { $0.contains(.everything(.manyEntities)) }
        try await writer.deleteAll()
        try await feed.wait(for: "many entities twice") {
            $0.filter { $0 == .everything(.manyEntities) }.count == 2
        }
        #expect(feed.changedIDs.isEmpty)
        await writer.close()
        await reader.close()
    }

    @Test func aLostListeningConnectionSaysEverythingAndListensAgain() async throws {
        let server = try await PostgresTestServer.shared()
        let writer = try await PostgresStores.make(ConformanceEntity.self)
        let reader = try await PostgresStores.make(ConformanceEntity.self, table: writer.tableName)
        let feed = ChangeRecorder(reader.changes())
        try await feed.waitUntilListening()
        try await server.psql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN \"\(reader.channel)\"'"
        )
        try await feed.waitUntilListening(times: 2)
        #expect(feed.changes.contains(.everything(.connectionLost)))
        try await writer.save(.makeWithoutNUL(index: 7, revision: 0))
        try await feed.wait(for: "the write after reconnecting") { $0.contains(.changed([7])) }
        await writer.close()
        await reader.close()
    }

    @Test func aFeedEndsWhenItsRepositoryCloses() async throws {
        let store = try await PostgresStores.make(ConformanceEntity.self)
        let changes = store.changes()
        await store.close()
        var count = 0
        for await _ in changes { count += 1 }
        #expect(count <= 1)
        var afterClose = 0
        for await _ in store.changes() { afterClose += 1 }
        #expect(afterClose == 0)
    }

    @Test func coherentCachesDropWhatAnotherInstanceWrote() async throws {
        let first = try await PostgresStores.make(ConformanceEntity.self)
        let second = try await PostgresStores.make(ConformanceEntity.self, table: first.tableName)
        let heard = Mutex<[PostgresChange<Int>]>([])
        let firstCache = first.cachedCoherently(
            in: InMemoryRepository<Cached<ConformanceEntity>>(), timeToLive: .seconds(3_600),
            onChange: { change in heard.withLock { $0.append(change) } })
        let secondCache = second.cachedCoherently(
            in: InMemoryRepository<Cached<ConformanceEntity>>(), timeToLive: .seconds(3_600))

        // A limit, not a measure: heard within milliseconds alone, it waited more than ten
        // seconds for a thread in a whole test suite on two cores.
        func waitUntilHeard(_ change: PostgresChange<Int>, times: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(120)
            while heard.withLock({ $0.filter { $0 == change }.count }) < times, ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        try await waitUntilHeard(.everything(.startedListening), times: 1)
        try await secondCache.save(.makeWithoutNUL(index: 1, revision: 0))
        try await waitUntilHeard(.changed([1]), times: 1)
        #expect(try await firstCache.fetch(id: 1)?.revision == 0)  // now cached in the first
        #expect(try await firstCache.fetch(id: 1)?.revision == 0)  // and served from the cache
        try await secondCache.save(.makeWithoutNUL(index: 1, revision: 1))
        try await waitUntilHeard(.changed([1]), times: 2)
        #expect(try await firstCache.fetch(id: 1)?.revision == 1)
        await first.close()
        await second.close()
    }

    /// A writer killed between its commit and its notification sends none; written here with
    /// SQL, which notifies nothing either. Another instance's cache serves the old entity until
    /// its time to live ends, and not a moment longer: the documented bound.
    @Test func aCommitWhoseNotificationNeverCameIsStaleOnlyUntilTheCachesTimeToLive() async throws {
        let server = try await PostgresTestServer.shared()
        let store = try await PostgresStores.make(ConformanceEntity.self)
        // The cache drops everything once its feed listens; the test starts after that.
        let (listening, listened) = AsyncStream.makeStream(of: Void.self)
        let cache = store.cachedCoherently(
            in: InMemoryRepository<Cached<ConformanceEntity>>(), timeToLive: .milliseconds(500),
            onChange: { change in
                if case .everything = change { listened.yield() }
            })
        var changes = listening.makeAsyncIterator()
        await changes.next()
        try await store.save(.makeWithoutNUL(index: 1, revision: 0))
        #expect(try await cache.fetch(id: 1)?.revision == 0)
        let cachedAt = ContinuousClock.now
        try await server.psql(
            "UPDATE \"\(store.tableName)\" SET body = jsonb_set(body, '{revision}', '1') WHERE id = 1")
        var revision = try await cache.fetch(id: 1)?.revision
        while revision == 0, ContinuousClock.now - cachedAt < .seconds(5) {
            try await Task.sleep(for: .milliseconds(20))
            revision = try await cache.fetch(id: 1)?.revision
        }
        let stale = ContinuousClock.now - cachedAt
        #expect(revision == 1, "the cache never dropped the entity")
        #expect(stale >= .milliseconds(500), "without a notification, only the time to live drops it")
        await store.close()
    }
}

/// An entity whose ID is neither an integer, a string nor a UUID: stored as its JSON.
struct Shelf: Codable, Identifiable, Sendable, Equatable {
    struct Key: Codable, Hashable, Sendable {
        var aisle: Int
        var name: String
    }
    var id: Key
    var books: Int
}

@Suite struct PostgresCodableIDTests {
    @Test func structIDsAreKeptAsTheirJSONAndComeBackThroughTheFeed() async throws {
        let server = try await PostgresTestServer.shared()
        let writer = try await PostgresStores.make(Shelf.self)
        let reader = try await PostgresStores.make(Shelf.self, table: writer.tableName)
        let feed = ChangeRecorder(reader.changes())
        try await feed.waitUntilListening()
        let shelf = Shelf(id: .init(aisle: 3, name: "Po\u{e9}sie"), books: 12)
        try await writer.save(shelf)
        #expect(try await reader.fetch(id: shelf.id) == shelf)
        #expect(
            try await server.psql("SELECT id FROM \"\(writer.tableName)\"") == #"{"aisle":3,"name":"Poésie"}"#
        )
        try await feed.wait(for: "the shelf") { $0.contains(.changed([shelf.id])) }
        await writer.close()
        await reader.close()
    }
}
