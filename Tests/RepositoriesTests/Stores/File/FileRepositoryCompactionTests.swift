import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

@Suite struct FileRepositoryCompactionTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func size(_ url: URL) throws -> Int { try Data(contentsOf: url).count }

    @Test func replacedRecordsAreCompactedAwayAndNothingIsLost() async throws {
        let url = directory.file()
        let options = FileRepository<FixtureEntity>.Options(durability: .never, compactionThreshold: 100)
        let store = try await FileRepository<FixtureEntity>(fileURL: url, options: options)
        let entities = (0..<50).map(FixtureEntity.make)
        for round in 0..<40 {
            for var entity in entities {
                entity.text = "round \(round)"
                try await store.save(entity)
            }
        }
        let expected = entities.map { entity in
            var last = entity
            last.text = "round 39"
            return last
        }
        #expect(try await store.fetchAll() == expected)
        #expect(store.lastCompactionError == nil)
        try await store.close()
        // 2,000 saves of 50 live entities: without compaction the file would hold them all.
        let oneRound = try expected.reduce(0) { $0 + (try JSONEncoder().encode($1)).count }
        #expect(try size(url) < oneRound * 4)
        let reopened = try await FileRepository<FixtureEntity>(fileURL: url)
        #expect(try await reopened.fetchAll() == expected)
        try await reopened.close()
    }

    @Test func explicitCompactionKeepsOrderAndContents() async throws {
        let url = directory.file()
        let store = try await FileRepository<FixtureEntity>(fileURL: url)
        try await store.save(contentsOf: (0..<20).map(FixtureEntity.make))
        try await store.delete(ids: Array(0..<10))
        try await store.save(.make(5))
        let before = try await store.fetchAll()
        let sizeBefore = try size(url)
        try await store.compact()
        #expect(try size(url) < sizeBefore)
        #expect(try await store.fetchAll() == before)
        try await store.save(.make(99))
        try await store.close()
        let reopened = try await FileRepository<FixtureEntity>(fileURL: url)
        #expect(try await reopened.fetchAll() == before + [.make(99)])
        try await reopened.close()
    }

    @Test func theLockHoldsAcrossACompaction() async throws {
        let url = directory.file()
        let store = try await FileRepository<FixtureEntity>(fileURL: url)
        try await store.save(.make(1))
        try await store.compact()
        let error = await #expect(throws: RepositoryError.self) {
            try await FileRepository<FixtureEntity>(fileURL: url)
        }
        #expect(error?.code == .locked)
        try await store.close()
    }

    @Test func aLeftoverFromACrashedCompactionIsIgnoredAndRemoved() async throws {
        let url = directory.file()
        let store = try await FileRepository<FixtureEntity>(fileURL: url)
        try await store.save(contentsOf: (0..<5).map(FixtureEntity.make))
        try await store.close()
        let leftover = URL(fileURLWithPath: url.path + ".compacting")
        try Data([1, 2, 3]).write(to: leftover)
        let reopened = try await FileRepository<FixtureEntity>(fileURL: url)
        #expect(try await reopened.fetchAll() == (0..<5).map(FixtureEntity.make))
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        try await reopened.close()
    }

    /// Closing while writes are queued and compaction is due: every acknowledged write is
    /// in the file, and the lock is released when `close()` returns.
    @Test func closeDuringWritesAndCompactionLosesNothingAndReleasesTheLock() async throws {
        for round in 0..<15 {
            let url = directory.file()
            let options = FileRepository<FixtureEntity>.Options(durability: .never, compactionThreshold: 8)
            let store = try await FileRepository<FixtureEntity>(fileURL: url, options: options)
            let acknowledged = LockedIDs()
            let writers = Task {
                await withTaskGroup(of: Void.self) { group in
                    for writer in 0..<4 {
                        group.addTask {
                            for step in 0..<200 {
                                var entity = FixtureEntity.make(writer * 10 + step % 10)
                                entity.text = "step \(step)"
                                do {
                                    try await store.save(entity)
                                    acknowledged.record(entity)
                                } catch {
                                    return  // the store was closed
                                }
                            }
                        }
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(round % 5))
            try await store.close()
            await writers.value
            let reopened = try await FileRepository<FixtureEntity>(fileURL: url)
            let stored = Dictionary(uniqueKeysWithValues: try await reopened.fetchAll().map { ($0.id, $0) })
            for (id, entity) in acknowledged.latest {
                #expect(
                    stored[id] == entity, "round \(round): the last acknowledged save of \(id) is missing")
            }
            try await reopened.close()
        }
    }

    @Test func manyConcurrentWritersAllLand() async throws {
        let url = directory.file()
        let store = try await FileRepository<FixtureEntity>(fileURL: url)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for step in 0..<50 { try await store.save(.make(task * 1_000 + step)) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.count() == 800)
        try await store.close()
        let reopened = try await FileRepository<FixtureEntity>(fileURL: url)
        #expect(try await reopened.count() == 800)
        try await reopened.close()
    }
}

/// The last acknowledged version of each entity, recorded by concurrent writers.
final class LockedIDs: Sendable {
    private let entities = Mutex<[Int: FixtureEntity]>([:])
    func record(_ entity: FixtureEntity) { entities.withLock { $0[entity.id] = entity } }
    var latest: [Int: FixtureEntity] { entities.withLock { $0 } }
}
