import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

/// Several connections to one file: writers that all land, a writer that waits for a lock
/// and then gives up with `locked`, readers beside a writer; and the repository's own
/// readers, which see every write that returned and never queue behind the writer.
@Suite struct SQLiteRepositoryConcurrencyTests {
    /// A directory of its own for each test, removed with it.
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    @Test func twoConnectionsWriteConcurrentlyAndNothingIsLost() async throws {
        let url = scratch.file()
        let first = try await SQLiteRepository<ConformanceEntity>(fileURL: url)
        let second = try await SQLiteRepository<ConformanceEntity>(fileURL: url)
        let tasksPerConnection = 4
        let savesPerTask = 200
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (connection, store) in [first, second].enumerated() {
                for task in 0..<tasksPerConnection {
                    let base = (connection * tasksPerConnection + task) * savesPerTask
                    group.addTask {
                        for index in base..<(base + savesPerTask) {
                            try await store.save(.make(index: index, revision: 0))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let total = 2 * tasksPerConnection * savesPerTask
        #expect(try await first.count() == total)
        #expect(try await second.count() == total)
        try await first.close()
        try await second.close()
        let reopened = try await SQLiteRepository<ConformanceEntity>(fileURL: url)
        let ids = try await reopened.fetchAll().map(\.id)
        #expect(ids.sorted() == Array(0..<total))
        try await reopened.close()
    }

    @Test func writerWaitsForTheBusyTimeoutThenThrowsLocked() async throws {
        let url = scratch.file()
        let options = SQLiteOptions(busyTimeout: .milliseconds(300))
        let store = try await SQLiteRepository<Note>(fileURL: url, options: options)
        try await store.save(.make(index: 1, revision: 0))
        let holder = try RawDatabase(url)
        try holder.execute("BEGIN IMMEDIATE")

        let clock = ContinuousClock()
        let start = clock.now
        let error = try await #require(throws: RepositoryError.self) {
            try await store.save(.make(index: 2, revision: 0))
        }
        let waited = clock.now - start
        #expect(error.code == .locked)
        #expect((error.underlying as? SQLiteError)?.code == SQLiteError.busy)
        #expect(waited >= .milliseconds(250), "gave up after \(waited), before the busy timeout")
        let batchError = try await #require(throws: RepositoryError.self) {
            try await store.save(contentsOf: [.make(index: 3, revision: 0), .make(index: 4, revision: 0)])
        }
        #expect(batchError.code == .locked)

        try holder.execute("COMMIT")
        try await store.save(.make(index: 2, revision: 0))
        #expect(
            try await store.fetchAll() == [.make(index: 1, revision: 0), .make(index: 2, revision: 0)])
        try await store.close()
    }

    @Test func readersAreNotBlockedByAnotherConnectionsWrite() async throws {
        let url = scratch.file()
        let options = SQLiteOptions(busyTimeout: .milliseconds(100))
        let store = try await SQLiteRepository<ConformanceEntity>(fileURL: url, options: options)
        try await store.save(.make(index: 1, revision: 0))
        let writer = try RawDatabase(url)
        try writer.execute(#"BEGIN IMMEDIATE; DELETE FROM "ConformanceEntity""#)
        // The uncommitted delete is invisible, and reading does not wait for it.
        #expect(try await store.fetchAll() == [.make(index: 1, revision: 0)])
        #expect(try await store.fetch(ids: [1, 2]) == [.make(index: 1, revision: 0)])
        let another = try await SQLiteRepository<ConformanceEntity>(fileURL: url, options: options)
        #expect(try await another.count() == 1)
        try writer.execute("ROLLBACK")
        try await another.close()
        try await store.close()
    }

    @Test func writersWaitingOnALockDoNotStallOtherTasks() async throws {
        let url = scratch.file()
        // Long enough that only a stalled pool, never a slow machine, lets a writer give up.
        let options = SQLiteOptions(busyTimeout: .seconds(300))
        // More blocked writers than the cooperative pool has threads.
        let writerCount = ProcessInfo.processInfo.activeProcessorCount + 2
        var opened: [SQLiteRepository<Note>] = []
        for _ in 0..<writerCount {
            opened.append(try await SQLiteRepository<Note>(fileURL: url, options: options))
        }
        let stores = opened
        let holder = try RawDatabase(url)
        try holder.execute("BEGIN IMMEDIATE")
        let finished = FinishedCount()
        let writers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, store) in stores.enumerated() {
                    group.addTask {
                        defer { finished.increment() }
                        try await store.save(.make(index: index, revision: 0))
                    }
                }
                try await group.waitForAll()
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        // Had the writers' busy waits blocked the cooperative pool's threads, this task
        // could only run once they gave up, and would see them finished. No clock is read,
        // so a loaded machine slows the test down but cannot fail it.
        let finishedBeforeProbe = await Task.detached { finished.value }.value
        #expect(finishedBeforeProbe == 0, "an unrelated task ran only after the blocked writers gave up")
        try holder.execute("COMMIT")
        try await writers.value
        #expect(try await stores[0].count() == writerCount)
        for store in stores { try await store.close() }
    }

    // MARK: Reads beside the writer

    @Test func everyReadSeesTheWriteThatReturnedBeforeIt() async throws {
        let store = try await SQLiteRepository<ConformanceEntity>(
            fileURL: scratch.file(), options: SQLiteOptions(synchronous: .off))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for step in 0..<150 {
                        let index = task * 1_000 + step % 50
                        let entity = ConformanceEntity.make(index: index, revision: step)
                        try await store.save(entity)
                        #expect(try await store.fetch(id: index) == entity, "task \(task) step \(step)")
                        #expect(
                            try await store.fetch(ids: [index]) == [entity], "task \(task) step \(step)")
                        if step % 25 == 0 {
                            #expect(
                                try await store.fetchAll().contains(entity), "task \(task) step \(step)")
                        }
                        if step % 50 == 49 {
                            try await store.delete(id: index)
                            #expect(try await store.fetch(id: index) == nil, "task \(task) step \(step)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        try await store.close()
    }

    @Test func readsDoNotQueueBehindAWriteWaitingForALock() async throws {
        let url = scratch.file()
        // Long enough that only a read stuck behind the write, never a slow machine, could
        // make the read wait for it.
        let store = try await SQLiteRepository<Note>(
            fileURL: url, options: SQLiteOptions(busyTimeout: .seconds(20)))
        try await store.save(.make(index: 1, revision: 0))
        let holder = try RawDatabase(url)
        try holder.execute("BEGIN IMMEDIATE")
        let saveFinished = FinishedCount()
        let save = Task {
            defer { saveFinished.increment() }
            try await store.save(.make(index: 2, revision: 0))
        }
        // Let the save reach the writer's queue and wait there for the lock.
        try await Task.sleep(for: .milliseconds(200))
        #expect(
            try await store.fetch(id: Note.make(index: 1, revision: 0).id) == .make(index: 1, revision: 0)
        )
        #expect(try await store.fetchAll() == [.make(index: 1, revision: 0)])
        #expect(try await store.count() == 1)
        #expect(saveFinished.value == 0, "the reads waited for the write")
        try holder.execute("COMMIT")
        try await save.value
        #expect(try await store.count() == 2)
        try await store.close()
    }

    @Test func readsSeeABatchWholeOrNotAtAll() async throws {
        let store = try await SQLiteRepository<ConformanceEntity>(
            fileURL: scratch.file(), options: SQLiteOptions(synchronous: .off))
        // More IDs than one IN list holds, so fetch(ids:) reads several chunks.
        let ids = Array(0..<1_500)
        try await store.save(contentsOf: ids.map { .make(index: $0, revision: 0) })
        let writer = Task {
            for revision in 1...20 {
                try await store.save(contentsOf: ids.map { .make(index: $0, revision: revision) })
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<10 {
                        let all = Set(try await store.fetchAll().map(\.revision))
                        let some = Set(try await store.fetch(ids: ids).map(\.revision))
                        #expect(all.count == 1 && some.count == 1, "a read saw part of a batch")
                    }
                }
            }
            try await group.waitForAll()
        }
        try await writer.value
        #expect(Set(try await store.fetchAll().map(\.revision)) == [20])
        try await store.close()
    }

    @Test func operationCancelledBeforeItStartsWritesNothing() async throws {
        let store = try SQLiteRepository<Note>.inMemory()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await store.save(.make(index: 1, revision: 0))
        }
        let outcome = await task.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(try await store.count() == 0)
    }
}

/// How many writers have finished, shared between tasks.
final class FinishedCount: Sendable {
    private let count = Mutex(0)

    var value: Int { count.withLock { $0 } }

    func increment() { count.withLock { $0 += 1 } }
}
