import CPostgres
import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

@testable import RepositoriesPostgres

/// The change feed over PostgreSQL: writes committed out of their number order are never
/// passed over, concurrent writers are mirrored exactly, tombstones expire cursors when
/// pruned, and a table of an earlier release gets its log at open.
@Suite struct PostgresChangeFeedTests {
    /// Writer A takes its transaction ID and change number first and holds its transaction
    /// open; writer B commits after it. A reader pulling then gets B and must not step past
    /// A; once A commits, the next pull delivers it.
    @Test func aWriteCommittedAfterALaterNumberedOneIsDeliveredByTheNextPull() async throws {
        let server = try await PostgresTestServer.shared()
        let store = try await PostgresStores.make(ConformanceEntity.self)
        let start = try await Self.drain(store, from: nil)
        #expect(start.saved.isEmpty && start.deleted.isEmpty)

        let writerA = try RawSession(server.connectionString)
        try writerA.run("BEGIN")
        let entityA = ConformanceEntity.makeWithoutNUL(index: 1, revision: 0)
        // The repository's upsert without the field columns (their values would be more
        // parameters): a writer that leaves them behind, which queries fill, and the feed
        // does not read.
        var withoutFields = store.table
        withoutFields.fields = []
        try writerA.run(withoutFields.upsert.sql, ["1", try Self.hex(entityA, as: .jsonb)])

        try await store.save(.makeWithoutNUL(index: 2, revision: 0))  // writer B, committed
        let whileAIsOpen = try await Self.drain(store, from: start.next)
        #expect(whileAIsOpen.saved.map(\.id) == [2])

        try writerA.run("COMMIT")
        let log = try await server.psql(
            "SELECT string_agg(id::text, ',' ORDER BY xid, change) FROM \"\(store.table.logName)\"")
        #expect(log == "1,2", "A took the smaller transaction ID and change number, and committed last")
        let afterA = try await Self.drain(store, from: whileAIsOpen.next)
        #expect(afterA.saved == [entityA])
        #expect(try await Self.drain(store, from: afterA.next).saved.isEmpty)
        await store.close()
    }

    /// Eight tasks write through a pool of four (saves, batches, deletes over overlapping
    /// IDs) while a reader on another repository pages with a small limit and mirrors what it
    /// reads; once the writers are done and the reader reaches the end, the mirror is the table.
    @Test func aReaderPagingDuringConcurrentWritesMirrorsTheTable() async throws {
        let store = try await PostgresStores.make(ConformanceEntity.self, poolSize: 4)
        let reader = try await PostgresStores.make(
            ConformanceEntity.self, table: store.tableName, poolSize: 1)
        let finished = Finished()
        let writing = Task {
            defer { finished.set() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        for step in 0..<100 {
                            let id = (writer * 37 + step * 11) % 240
                            switch step % 10 {
                            case 3: try await store.delete(id: id)
                            case 6: try await store.delete(ids: [id, (id + 1) % 240])
                            case 8:
                                try await store.save(contentsOf: [
                                    .makeWithoutNUL(index: id, revision: step),
                                    .makeWithoutNUL(index: id + 240, revision: step),
                                ])
                            default:
                                try await store.save(
                                    .makeWithoutNUL(index: id, revision: writer * 1_000 + step))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        var mirror: [Int: ConformanceEntity] = [:]
        var cursor: SyncCursor?
        var pages = 0
        while !finished.isSet {
            let page = try await reader.changes(since: cursor, limit: 17)
            #expect(Set(page.saved.map(\.id) + page.deleted).count == page.saved.count + page.deleted.count)
            for entity in page.saved { mirror[entity.id] = entity }
            for id in page.deleted { mirror[id] = nil }
            cursor = page.next
            pages += 1
            if !page.hasMore { try await Task.sleep(for: .milliseconds(2)) }
        }
        try await writing.value
        let rest = try await Self.drain(reader, from: cursor)
        for entity in rest.saved { mirror[entity.id] = entity }
        for id in rest.deleted { mirror[id] = nil }
        let table = try await store.fetchAll()
        #expect(mirror.count == table.count)
        #expect(mirror == Dictionary(uniqueKeysWithValues: table.map { ($0.id, $0) }))
        #expect(pages > 5, "the reader paged while the writers wrote")
        await reader.close()
        await store.close()
    }

    @Test func aNilCursorPagesThroughEveryEntityEachIDOncePerPageInItsLatestState() async throws {
        let store = try await PostgresStores.make(ConformanceEntity.self)
        try await store.save(contentsOf: (0..<25).map { .makeWithoutNUL(index: $0, revision: 0) })
        try await store.save(contentsOf: (0..<10).map { .makeWithoutNUL(index: $0, revision: 1) })
        try await store.delete(ids: [20, 21])
        var cursor: SyncCursor?
        var seen: [Int: ConformanceEntity] = [:]
        var deleted: Set<Int> = []
        repeat {
            let page = try await store.changes(since: cursor, limit: 4)
            #expect(page.saved.count + page.deleted.count <= 4)
            for entity in page.saved { seen[entity.id] = entity }
            deleted.formUnion(page.deleted)
            cursor = page.next
            if !page.hasMore { break }
        } while true
        #expect(seen.values.sorted { $0.id < $1.id } == (try await store.fetchAll()).sorted { $0.id < $1.id })
        #expect(deleted == [20, 21])

        try await store.save(.makeWithoutNUL(index: 3, revision: 2))
        try await store.delete(id: 4)
        try await store.deleteAll()
        let after = try await Self.drain(store, from: cursor)
        #expect(after.saved.isEmpty)
        #expect(Set(after.deleted) == Set((0..<25).filter { $0 != 20 && $0 != 21 }))
        await store.close()
    }

    @Test func cursorsItCannotAnswerFromAreExpiredAndALimitBelowOneIsRejected() async throws {
        let store = try await PostgresStores.make(ConformanceEntity.self)
        let other = try await PostgresStores.make(ConformanceEntity.self)
        try await store.save(.makeWithoutNUL(index: 1, revision: 0))
        let theirs = try await other.changes(since: nil, limit: 10).next
        for cursor in [theirs, SyncCursor("garbage"), SyncCursor("\(UUID().uuidString)/1:1:")] {
            let error = try await #require(throws: RepositoryError.self) {
                _ = try await store.changes(since: cursor, limit: 10)
            }
            #expect(error.code == .cursorExpired, "\(cursor): \(error)")
        }
        let future = try await store.changes(since: nil, limit: 10).next.token
            .replacingOccurrences(of: "/", with: "/9999999", options: [], range: nil)
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await store.changes(since: SyncCursor(future), limit: 10)
        }
        #expect(error.code == .cursorExpired, "\(future): \(error)")
        let rejected = try await #require(throws: RepositoryError.self) {
            _ = try await store.changes(since: nil, limit: 0)
        }
        #expect(rejected.code == .rejected)
        await other.close()
        await store.close()
    }

    /// Tombstones older than the retention are pruned, by the method and at open; a cursor
    /// from before a pruned tombstone is refused, a new one is answered.
    ///
    /// On a server of its own: a cursor issued while a transaction older than the newest
    /// pruned tombstone runs is refused too (the bound is compared with the cursor's oldest
    /// running transaction), and with a retention of zero the other tests' transactions on
    /// the shared server would be such transactions.
    @Test func pruningTombstonesExpiresTheCursorsFromBeforeThem() async throws {
        let table = PostgresStores.tableName("prune")
        let server = try await PostgresTestServer.start()
        defer { server.stop() }
        let store = try await PostgresRepository<ConformanceEntity>(
            connectionString: server.connectionString,
            options: PostgresOptions(tableName: table, poolSize: 1, tombstoneRetention: .zero))
        try await store.save(contentsOf: (0..<3).map { .makeWithoutNUL(index: $0, revision: 0) })
        let before = try await Self.drain(store, from: nil).next
        try await store.save(.makeWithoutNUL(index: 7, revision: 0))
        #expect(try await store.pruneTombstones() == 0, "nothing deleted yet")
        #expect(try await store.changes(since: before, limit: 10).saved.map(\.id) == [7])

        try await store.delete(id: 1)
        #expect(try await store.pruneTombstones() == 1)
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await store.changes(since: before, limit: 10)
        }
        #expect(error.code == .cursorExpired, "\(error)")
        let fresh = try await Self.drain(store, from: nil)
        #expect(fresh.saved.map(\.id).sorted() == [0, 2, 7] && fresh.deleted.isEmpty)

        try await store.delete(id: 2)
        await store.close()
        let kept = try await PostgresRepository<ConformanceEntity>(
            connectionString: server.connectionString, options: PostgresOptions(tableName: table, poolSize: 1)
        )
        #expect(try await kept.changes(since: fresh.next, limit: 10).deleted == [2], "no retention: kept")
        await kept.close()
        let reopened = try await PostgresRepository<ConformanceEntity>(
            connectionString: server.connectionString,
            options: PostgresOptions(tableName: table, poolSize: 1, tombstoneRetention: .zero))
        let atOpen = try await #require(throws: RepositoryError.self) {
            _ = try await reopened.changes(since: fresh.next, limit: 10)
        }
        #expect(atOpen.code == .cursorExpired, "pruned when it opened: \(atOpen)")
        await reopened.close()
    }

    /// A table an earlier release created has no log: opening logs every row it holds, so a
    /// reader from `nil` gets them all, and the entity table keeps its body (gaining only the version stamp); what an earlier
    /// release inserts or deletes later is reconciled at the next open.
    @Test func aTableOfAnEarlierReleaseGetsItsLogAtOpen() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("earlier")
        let rows = (0..<30).map { ConformanceEntity.makeWithoutNUL(index: $0, revision: 0) }
        try await server.psql(
            """
            CREATE TABLE "\(table)" (seq bigint GENERATED ALWAYS AS IDENTITY, id bigint PRIMARY KEY,
                body bytea NOT NULL, version bigint NOT NULL)
            """)
        let earlierRelease = try RawSession(server.connectionString)
        let insert = "INSERT INTO \"\(table)\" (id, body, version) VALUES ($1, $2, 1)"
        for entity in rows { try earlierRelease.run(insert, ["\(entity.id)", try Self.hex(entity)]) }
        let store = try await PostgresStores.make(ConformanceEntity.self, table: table)
        let all = try await Self.drain(store, from: nil)
        #expect(all.saved == rows, "in insertion order")
        #expect(
            try await server.psql(
                "SELECT string_agg(column_name, ' ' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = '\(table)'"
            )
                == "seq id body version schema_version",
            "the table keeps its body, and gains the version stamp")
        // Rows an earlier release inserts and deletes once the log exists reach it at the next open.
        let late = ConformanceEntity.makeWithoutNUL(index: 99, revision: 0)
        try earlierRelease.run(insert, ["99", try Self.hex(late)])
        try earlierRelease.run("DELETE FROM \"\(table)\" WHERE id = 5")
        await store.close()
        let reopened = try await PostgresStores.make(ConformanceEntity.self, table: table)
        let reconciled = try await Self.drain(reopened, from: all.next)
        #expect(reconciled.saved == [late])
        #expect(reconciled.deleted == [5])
        await reopened.close()
    }

    @Test func aLogTableOfAnotherShapeIsRejected() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("logshape")
        try await server.psql("CREATE TABLE \"\(table)_log\" (id bigint PRIMARY KEY, note text)")
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await PostgresStores.make(ConformanceEntity.self, table: table)
        }
        #expect(error.code == .rejected)
        #expect(error.description.contains("change feed"), "\(error)")
    }

    // MARK: Helpers

    /// The entity's JSON as a `bytea` literal in hex.
    /// The entity's JSON as a `bytea` literal, encoded as a table of `storage` keeps it.
    static func hex(_ entity: ConformanceEntity, as storage: PostgresBodyStorage = .bytea) throws -> String {
        "\\x" + (try storage.defaultEncoder().encode(entity)).map { String(format: "%02x", $0) }.joined()
    }

    /// Pages from `cursor` until the feed says nothing more follows; everything read, with
    /// the last cursor.
    static func drain(
        _ store: PostgresRepository<ConformanceEntity>, from cursor: SyncCursor?, limit: Int = 7
    ) async throws -> ChangePage<ConformanceEntity, Int> {
        var cursor = cursor
        var saved: [Int: ConformanceEntity] = [:]
        var order: [Int] = []
        var deleted: [Int] = []
        while true {
            let page = try await store.changes(since: cursor, limit: limit)
            for entity in page.saved {
                if saved.updateValue(entity, forKey: entity.id) == nil { order.append(entity.id) }
            }
            deleted += page.deleted
            cursor = page.next
            if !page.hasMore {
                return ChangePage(
                    saved: order.compactMap { saved[$0] }, deleted: deleted, next: page.next, hasMore: false)
            }
        }
    }
}

struct RawSessionFailure: Error, CustomStringConvertible {
    var description: String
}

/// Set once, read from another task.
final class Finished: Sendable {
    private let flag = Mutex(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}

/// A libpq connection of the test's own, to hold a transaction open across the store's calls.
final class RawSession {
    private let connection: OpaquePointer

    init(_ conninfo: String) throws {
        guard let connection = PQconnectdb(conninfo), PQstatus(connection) == CONNECTION_OK else {
            throw RawSessionFailure(description: "a raw connection to \(conninfo) failed")
        }
        self.connection = connection
    }

    deinit { PQfinish(connection) }

    /// Runs `sql` with text `parameters`, whose types the server infers.
    func run(_ sql: String, _ parameters: [String] = []) throws {
        let copies = parameters.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let values: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) }
        let result = PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw RawSessionFailure(
                description: "\(sql): \(String(cString: PQerrorMessage(connection)))")
        }
    }
}
