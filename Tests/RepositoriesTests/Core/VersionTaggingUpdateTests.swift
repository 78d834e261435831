import Foundation
import Repositories
import Synchronization
import Testing

/// The default `update(id:_:)` of a repository that tags versions: read with the tag, change,
/// write on the tag, and again on conflict.
@Suite struct VersionTaggingUpdateTests {
    struct Counter: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var count: Int
    }

    /// Entities in memory, each with a version; `interference` writes the entity once more
    /// between a read and the write after it that many times, as another writer would.
    final class TaggedCounters: VersionTaggingRepository, Sendable {
        typealias Entity = Counter
        typealias ID = Int
        private let state = Mutex<(rows: [Int: (Counter, Int)], interference: Int, reads: Int, tags: Bool)>(
            ([:], 0, 0, true))

        init(tags: Bool = true) { state.withLock { $0.tags = tags } }

        func interfere(_ times: Int) { state.withLock { $0.interference = times } }
        var reads: Int { state.withLock { $0.reads } }

        func fetchTagged(id: Int) async throws -> TaggedEntity<Counter>? {
            state.withLock { state in
                state.reads += 1
                guard let (counter, version) = state.rows[id] else { return nil }
                if state.interference > 0 {
                    state.interference -= 1
                    state.rows[id] = (Counter(id: id, count: counter.count + 100), version + 1)
                }
                return TaggedEntity(counter, tag: state.tags ? "\"\(version)\"" : nil)
            }
        }
        func save(_ entity: Counter, ifMatch tag: String) async throws {
            try state.withLock { state in
                guard let (_, version) = state.rows[entity.id], tag == "\"\(version)\"" else {
                    throw RepositoryError.conflict("moved", id: "\(entity.id)")
                }
                state.rows[entity.id] = (entity, version + 1)
            }
        }
        func saveIfAbsent(_ entity: Counter) async throws {
            try state.withLock { state in
                guard state.rows[entity.id] == nil else { throw RepositoryError.conflict("exists") }
                state.rows[entity.id] = (entity, 1)
            }
        }
        func delete(id: Int, ifMatch tag: String) async throws {
            state.withLock { _ = $0.rows.removeValue(forKey: id) }
        }
        func fetch(id: Int) async throws -> Counter? { state.withLock { $0.rows[id]?.0 } }
        func fetchAll() async throws -> [Counter] { state.withLock { $0.rows.values.map(\.0) } }
        func save(_ entity: Counter) async throws {
            state.withLock { $0.rows[entity.id] = (entity, ($0.rows[entity.id]?.1 ?? 0) + 1) }
        }
        func save(contentsOf entities: [Counter]) async throws {
            for entity in entities { try await save(entity) }
        }
        func delete(id: Int) async throws { state.withLock { _ = $0.rows.removeValue(forKey: id) } }
        func deleteAll() async throws { state.withLock { $0.rows = [:] } }
    }

    @Test func manyTasksUpdatingOneEntityLoseNothing() async throws {
        let counters = TaggedCounters()
        try await counters.save(Counter(id: 1, count: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<50 { try await counters.update(id: 1) { $0.count += 1 } } }
            }
            try await group.waitForAll()
        }
        #expect(try await counters.fetch(id: 1)?.count == 400)
    }

    @Test func aWriteMadeMeanwhileIsReadAgainAndKept() async throws {
        let counters = TaggedCounters()
        try await counters.save(Counter(id: 1, count: 0))
        counters.interfere(3)
        let written = try await counters.update(id: 1) { $0.count += 1 }
        #expect(written.count == 301, "the three writes made meanwhile are kept, and one more")
        #expect(counters.reads == 4)
    }

    @Test func everyAttemptMeetingANewerVersionIsAConflictWithNothingWritten() async throws {
        let counters = TaggedCounters()
        try await counters.save(Counter(id: 1, count: 0))
        counters.interfere(1_000)
        let error = try await #require(throws: RepositoryError.self) {
            try await counters.update(id: 1, attempts: 3) { $0.count += 1 }
        }
        #expect(error.code == .conflict && error.underlying != nil, "\(error)")
        #expect(counters.reads == 3)
        #expect(try await counters.fetch(id: 1)?.count == 300, "only the other writer's writes")
    }

    @Test func whatUpdateCannotDoIsRefusedWithNothingWritten() async throws {
        let untagged = TaggedCounters(tags: false)
        try await untagged.save(Counter(id: 1, count: 0))
        let noTag = try await #require(throws: RepositoryError.self) {
            try await untagged.update(id: 1) { $0.count += 1 }
        }
        #expect(noTag.code == .rejected)
        let counters = TaggedCounters()
        let absent = try await #require(throws: RepositoryError.self) {
            try await counters.update(id: 1) { $0.count += 1 }
        }
        #expect(absent.code == .notFound)
        try await counters.save(Counter(id: 1, count: 0))
        let renamed = try await #require(throws: RepositoryError.self) {
            try await counters.update(id: 1) { $0.id = 2 }
        }
        #expect(renamed.code == .rejected)
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await counters.update(id: 1) { _ in throw Refused() } }
        #expect(try await counters.fetchAll() == [Counter(id: 1, count: 0)], "nothing written")
    }
}
