import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

/// The counters an outbox reads from disk (each change's revision and its count of tries)
/// are checked like the rest of the file: a value the outbox never writes reads as
/// `corrupted` at open, and no counter traps when it grows.
@Suite struct OutboxCounterTests {
    /// An outbox record's coded fields, to forge what a damaged or tampered file holds.
    private struct ForgedRecord: Codable, Identifiable, Sendable {
        struct StoredError: Codable, Sendable {
            var code: String
            var reason: String
            var recovery: String?
        }
        var id: Int
        var entity: Item?
        var base: Item?
        var key: String
        var revision: UInt64
        var attempts: Int
        var lastError: StoredError?
        var rejected: Bool
        var madeAt: Date
    }

    /// An outbox file holding changes to items 1, 2 and 3, the second with `forge` applied.
    private static func outbox(in directory: TemporaryDirectory, forging forge: (inout ForgedRecord) -> Void)
        async throws -> URL
    {
        let url = directory.file("items.outbox")
        let outbox = try await Outbox<Item>(fileURL: url)
        let items = InMemoryRepository<Item>().offlineFirst(
            local: InMemoryRepository<Item>(), outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        try await items.save(contentsOf: [item(1), item(2), item(3)])
        try await outbox.close()

        let records = try await FileRepository<ForgedRecord>(fileURL: url)
        var record = try #require(try await records.fetch(id: 2))
        forge(&record)
        try await records.save(record)
        try await records.close()
        return url
    }

    @Test(arguments: ["revision at UInt64.max", "attempts at Int.max", "attempts below zero"])
    func aForgedCounterReadsAsCorruptedAtOpenWithTheFileUntouched(_ forgery: String) async throws {
        let directory = try TemporaryDirectory()
        let url = try await Self.outbox(in: directory) { record in
            switch forgery {
            case "revision at UInt64.max": record.revision = .max
            case "attempts at Int.max": record.attempts = .max
            default: record.attempts = -1
            }
        }
        let before = try Data(contentsOf: url)

        let error = await #expect(throws: RepositoryError.self) { try await Outbox<Item>(fileURL: url) }

        #expect(error?.code == .corrupted, "\(String(describing: error))")
        #expect(error?.location == url.path, "names the outbox's file: \(String(describing: error))")
        #expect(error?.record?.contains("2") == true, "names the record: \(String(describing: error))")
        #expect(
            error?.reason.contains(forgery.components(separatedBy: " ")[0]) == true, "\(error?.reason ?? "")")
        #expect(try Data(contentsOf: url) == before, "the file is left as it was")
        // Opening again reads the same, so the lock was let go.
        await #expect(throws: RepositoryError.self) { try await Outbox<Item>(fileURL: url) }
    }

    @Test func aRevisionThatCannotGrowStopsTheWriteWithCorruptedNotATrap() async throws {
        let directory = try TemporaryDirectory()
        let url = try await Self.outbox(in: directory) { $0.revision = .max - 1 }
        let outbox = try await Outbox<Item>(fileURL: url)
        let local = InMemoryRepository<Item>()
        let items = InMemoryRepository<Item>().offlineFirst(
            local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)

        for _ in 1...2 {
            let error = await #expect(throws: RepositoryError.self) { try await items.save(item(4)) }
            #expect(error?.code == .corrupted, "\(String(describing: error))")
            #expect(error?.location == url.path, "\(String(describing: error))")
        }
        #expect(try await local.fetch(id: 4) == nil, "a write the outbox refused is not applied")
        #expect(try await outbox.changes().map(\.id) == [1, 2, 3])
        try await outbox.close()
    }

    @Test func aCountOfTriesThatCannotGrowStopsTheSyncWithCorruptedNotATrap() async throws {
        let directory = try TemporaryDirectory()
        let url = try await Self.outbox(in: directory) { $0.attempts = .max - 1 }
        let outbox = try await Outbox<Item>(fileURL: url)
        let remote = Remote()
        remote.online = false
        let items = remote.offlineFirst(
            local: InMemoryRepository<Item>(), outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)

        for _ in 1...2 {
            let error = await #expect(throws: RepositoryError.self) { try await items.sync() }
            #expect(error?.code == .corrupted, "\(String(describing: error))")
            #expect(error?.location == url.path, "\(String(describing: error))")
        }
        #expect(try await outbox.change(for: 2)?.attempts == .max - 1, "the count is never written past")
        try await outbox.close()
    }
}
