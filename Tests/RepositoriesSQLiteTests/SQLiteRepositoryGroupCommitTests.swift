import Dispatch
import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

@testable import RepositoriesSQLite

/// Group commit: writes that wait for the writer together share one transaction, and each
/// caller hears that transaction's outcome (or its own write's failure) before it returns.
///
/// The deterministic tests hold the writer inside a commit (a commit hook that waits on a
/// gate), line writes up behind it, and count the commits that follow.
@Suite struct SQLiteRepositoryGroupCommitTests {
    /// A directory of its own for each test, removed with it.
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    @Test func manyTasksWritingAtOnceLeaveWhatAModelOfEachTaskSays() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Note>(fileURL: url)
        let tasks = 64
        let steps = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for step in 0..<steps {
                        try await Self.operation(task: task, step: step).apply(to: store)
                    }
                }
            }
            try await group.waitForAll()
        }
        var model: [String: Note] = [:]
        for task in 0..<tasks {
            for step in 0..<steps { Self.operation(task: task, step: step).apply(to: &model) }
        }
        #expect(try await store.count() == model.count)
        try await store.close()
        let reopened = try await SQLiteRepository<Note>(fileURL: url)
        let stored = try await reopened.fetchAll()
        #expect(stored.count == model.count)
        #expect(Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }) == model)
        try await reopened.close()
    }

    @Test func writesThatWaitTogetherCommitInOneTransaction() async throws {
        let store = try await SQLiteRepository<Note>(fileURL: scratch.file())
        let commits = CommitGate(failing: [])
        await store.database.setCommitHook(commits.hook)
        let first = Task { try await store.save(.make(index: 0, revision: 0)) }
        try await commits.waitUntilHeld()
        let waiting = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 1...7 {
                    group.addTask { try await store.save(.make(index: index, revision: 0)) }
                }
                group.addTask { try await store.delete(id: Note.make(index: 3, revision: 0).id) }
                try await group.waitForAll()
            }
        }
        try await Self.waitUntil(store, hasWaiting: 8)
        commits.release()
        try await first.value
        try await waiting.value
        // The first save's commit, then one for the eight writes that waited behind it.
        #expect(commits.count == 2)
        #expect(try await store.count() == 7)
        try await store.close()
    }

    @Test func aFailedSharedCommitReachesEveryCallerAndAppliesNothing() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Note>(fileURL: url)
        let commits = CommitGate(failing: [2])
        await store.database.setCommitHook(commits.hook)
        let first = Task { try await store.save(.make(index: 0, revision: 0)) }
        try await commits.waitUntilHeld()
        let outcomes = Task {
            await withTaskGroup(of: Result<Void, any Error>.self) { group in
                for index in 1...5 {
                    group.addTask {
                        await Self.outcome { try await store.save(.make(index: index, revision: 0)) }
                    }
                }
                group.addTask {
                    await Self.outcome {
                        try await store.save(contentsOf: [
                            .make(index: 6, revision: 0), .make(index: 7, revision: 0),
                        ])
                    }
                }
                group.addTask {
                    await Self.outcome { try await store.delete(id: Note.make(index: 0, revision: 0).id) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await Self.waitUntil(store, hasWaiting: 7)
        commits.release()
        try await first.value
        let results = await outcomes.value
        #expect(results.count == 7)
        for result in results {
            #expect(throws: RepositoryError.self) { try result.get() }
        }
        #expect(commits.count == 2)
        #expect(try await store.fetchAll() == [.make(index: 0, revision: 0)])
        try await store.close()
        let reopened = try await SQLiteRepository<Note>(fileURL: url)
        #expect(try await reopened.fetchAll() == [.make(index: 0, revision: 0)])
        try await reopened.close()
    }

    @Test func aWriteThatFailsInAGroupFailsAloneAndTheOthersCommit() async throws {
        let url = scratch.file()
        // A JSON table: JSON refuses the unencodable note's NaN, which the binary codec keeps.
        let store = try await SQLiteRepository<Note>(fileURL: url, options: SQLiteOptions(codec: .json))
        let poisoned = Note.make(index: 5, revision: 0)
        let raw = try RawDatabase(url)
        try raw.execute(
            """
            CREATE TRIGGER refuse BEFORE INSERT ON "Note" WHEN NEW.id = '\(poisoned.id)'
            BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
            """)
        let commits = CommitGate(failing: [])
        await store.database.setCommitHook(commits.hook)
        let first = Task { try await store.save(.make(index: 0, revision: 0)) }
        try await commits.waitUntilHeld()
        let refused = Task { try await store.save(poisoned) }
        let unencodable = Task { try await store.save(.unencodable(index: 6)) }
        let refusedBatch = Task {
            try await store.save(contentsOf: [.make(index: 7, revision: 0), poisoned])
        }
        let others = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 1...4 {
                    group.addTask { try await store.save(.make(index: index, revision: 0)) }
                }
                try await group.waitForAll()
            }
        }
        // The unencodable note never reaches the writer: its caller fails at once.
        let encodingError = try await #require(throws: RepositoryError.self) { try await unencodable.value }
        #expect(encodingError.code == .encodingFailed)
        try await Self.waitUntil(store, hasWaiting: 6)
        commits.release()
        try await first.value
        try await others.value
        let refusal = try await #require(throws: RepositoryError.self) { try await refused.value }
        #expect(refusal.code == .conflict)
        let batchRefusal = try await #require(throws: RepositoryError.self) { try await refusedBatch.value }
        #expect(batchRefusal.code == .conflict)
        #expect(commits.count == 2)
        try await store.close()
        let reopened = try await SQLiteRepository<Note>(fileURL: url)
        #expect(try await reopened.fetchAll() == (0...4).map { .make(index: $0, revision: 0) })
        try await reopened.close()
    }

    @Test func aWriteCancelledWhileItWaitsIsNotApplied() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Note>(fileURL: url)
        let commits = CommitGate(failing: [])
        await store.database.setCommitHook(commits.hook)
        let first = Task { try await store.save(.make(index: 0, revision: 0)) }
        try await commits.waitUntilHeld()
        let cancelled = Task { try await store.save(.make(index: 1, revision: 0)) }
        let kept = Task { try await store.save(.make(index: 2, revision: 0)) }
        try await Self.waitUntil(store, hasWaiting: 2)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(store.database.waitingWriteCount == 1)
        commits.release()
        try await first.value
        try await kept.value
        try await store.close()
        let reopened = try await SQLiteRepository<Note>(fileURL: url)
        #expect(
            try await reopened.fetchAll() == [.make(index: 0, revision: 0), .make(index: 2, revision: 0)])
        try await reopened.close()
    }

    // MARK: Support

    /// Step `step` of task `task`: replacements of the task's own five notes (a later one
    /// must win), a batch of new notes now and then, and deletes.
    static func operation(task: Int, step: Int) -> Operation {
        let base = task * 1_000
        if step % 10 == 9 {
            return .batch((0..<3).map { Note.make(index: base + 100 + step * 3 + $0, revision: step) })
        }
        if step % 7 == 6 { return .delete(Note.make(index: base + step % 5, revision: 0).id) }
        return .save(.make(index: base + step % 5, revision: step))
    }

    enum Operation {
        case save(Note)
        case batch([Note])
        case delete(String)

        func apply(to store: SQLiteRepository<Note>) async throws {
            switch self {
            case .save(let note): try await store.save(note)
            case .batch(let notes): try await store.save(contentsOf: notes)
            case .delete(let id): try await store.delete(id: id)
            }
        }

        func apply(to model: inout [String: Note]) {
            switch self {
            case .save(let note): model[note.id] = note
            case .batch(let notes): for note in notes { model[note.id] = note }
            case .delete(let id): model[id] = nil
            }
        }
    }

    /// What `body` returned or threw.
    static func outcome(_ body: () async throws -> Void) async -> Result<Void, any Error> {
        do {
            try await body()
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Waits until `count` writes wait for the writer: polled, since lining up is all that
    /// is awaited, never a duration.
    static func waitUntil(_ store: SQLiteRepository<Note>, hasWaiting count: Int) async throws {
        while store.database.waitingWriteCount < count { try await Task.sleep(for: .milliseconds(1)) }
        #expect(store.database.waitingWriteCount == count)
    }
}

/// A commit hook that counts the writer's commits, holds the first one until ``release()``,
/// and fails the commits whose numbers (from 1) it was given.
final class CommitGate: Sendable {
    private let state = Mutex((count: 0, held: false))
    private let failing: Set<Int>
    private let gate = DispatchSemaphore(value: 0)

    init(failing: Set<Int>) {
        self.failing = failing
    }

    /// How many commits the writer attempted.
    var count: Int { state.withLock { $0.count } }

    /// The hook: runs on the writer's queue, so waiting here holds the writer, not a task.
    var hook: @Sendable () -> Bool {
        { [self] in
            let number = state.withLock { state in
                state.count += 1
                if state.count == 1 { state.held = true }
                return state.count
            }
            if number == 1 { gate.wait() }
            return !failing.contains(number)
        }
    }

    /// Waits until the first commit is held.
    func waitUntilHeld() async throws {
        while !state.withLock({ $0.held }) { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// Lets the held commit go on.
    func release() {
        gate.signal()
    }
}
