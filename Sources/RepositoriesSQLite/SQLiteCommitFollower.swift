import Foundation
import Repositories
import Synchronization

/// The one task that follows a ``SQLiteRepository``'s change log for every stream
/// ``SQLiteRepository/committedChanges(checkingEvery:)`` returned.
///
/// The repository holds its follower; the task holds neither (it looks its follower up
/// weakly at each check, and the follower holds only the database), so releasing the
/// repository ends the task at its next check and finishes the streams. The task starts with
/// the first stream and ends with the last one, so an idle repository runs no check.
///
/// Each check reads the IDs of the log's changes past the task's cursor (see
/// ``SQLiteTable/changedKeys(after:limit:on:location:)``), never a row. Every stream begins
/// with `.invalidatedAll` once the task holds a cursor, taken before that marker: every commit
/// after the marker comes after the cursor and is reported, and one before it is covered by it.
final class SQLiteCommitFollower<Entity: Identifiable & Sendable>: Sendable
where Entity.ID: Decodable & Sendable {
    typealias Change = RepositoryChange<Entity>
    typealias Continuation = AsyncThrowingStream<Change, any Error>.Continuation

    /// The most IDs one check reports: past them, it says `.invalidatedAll` and goes on
    /// from the log's newest change, rather than send page after page, each a new read of
    /// every value stream (a bulk import in another process).
    static var pageSize: Int { 512 }
    /// The shortest wait between two checks, whatever a stream asks for.
    static var shortestInterval: Duration { .milliseconds(1) }
    /// How long checks may keep failing with errors taken for transient (a lock held past the
    /// busy timeout, an I/O error) before the streams end with the last one.
    static var failingLimit: Duration { .seconds(30) }

    private let database: SQLiteDatabase
    private let state = Mutex(State())
    /// How many checks ran: a test hook, so a test can tell that one task serves every stream
    /// and that none checks once the last stream ended.
    private let checks = Atomic<Int>(0)

    /// One stream: where its changes go, how often it asked for checks, and whether it has had
    /// its starting `.invalidatedAll`.
    private struct Subscriber {
        var continuation: Continuation
        var interval: Duration
        var started: Bool
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextToken = 0
        /// The running task's number: a task that is no longer the current one (the last
        /// stream ended, a new one started another) delivers nothing.
        var generation = 0
        var task: Task<Void, Never>?
        /// Whether the running task holds a cursor: a stream made now gets its marker at once.
        var following = false
    }

    init(database: SQLiteDatabase) {
        self.database = database
    }

    deinit {
        let subscribers = state.withLock { state in
            state.task?.cancel()
            return state.subscribers.values
        }
        for subscriber in subscribers { subscriber.continuation.finish() }
    }

    /// How many streams follow the log now: a test hook.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// How many checks ran so far: a test hook.
    var checkCount: Int { checks.load(ordering: .relaxed) }

    /// A new stream of the IDs committed from now on (see
    /// ``SQLiteRepository/committedChanges(checkingEvery:)``), which asks for a check at least
    /// every `interval`.
    func subscribe(checkingEvery interval: Duration) -> AsyncThrowingStream<Change, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Change.self)
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(token) }
        state.withLock { state in
            if state.following { continuation.yield(.invalidatedAll) }
            state.subscribers[token] = Subscriber(
                continuation: continuation, interval: max(interval, Self.shortestInterval),
                started: state.following)
            if state.task == nil {
                state.generation += 1
                state.task = start(generation: state.generation)
            }
        }
        return stream
    }

    private func unsubscribe(_ token: Int) {
        state.withLock { state in
            guard state.subscribers.removeValue(forKey: token) != nil, state.subscribers.isEmpty else {
                return
            }
            state.task?.cancel()
            state.task = nil
            state.following = false
            state.generation += 1
        }
    }

    private func start(generation: Int) -> Task<Void, Never> {
        Task { [weak self] in
            var position = Position.starting
            var failingSince: ContinuousClock.Instant?
            while let pause = await self?.check(
                from: &position, failingSince: &failingSince, generation: generation)
            {
                do {
                    try await Task.sleep(for: pause)
                } catch {
                    return
                }
            }
        }
    }

    /// Where the task stands in the log.
    private enum Position {
        /// No cursor yet: the next check takes the newest and gives the streams their marker.
        case starting
        /// The log forgot tombstones past the cursor (a prune), or more changed than a check
        /// reports: the next check takes the newest, then tells every stream that anything may
        /// have changed meanwhile.
        case expired
        case after(SQLiteChangeCursor)

        var isStarting: Bool {
            if case .starting = self { true } else { false }
        }
    }

    /// One check: takes a cursor, or reads the changes past the one held and delivers them.
    /// Returns how long to wait before the next check, or `nil` when the task ends.
    ///
    /// - Parameter failingSince: when the checks began to fail with errors taken for
    ///   transient; `nil` after one that succeeded.
    private func check(
        from position: inout Position, failingSince: inout ContinuousClock.Instant?, generation: Int
    ) async -> Duration? {
        guard let interval = interval(ifCurrent: generation) else { return nil }
        do {
            switch position {
            case .starting, .expired:
                try await takeNewest(&position, generation: generation)
            case .after(let cursor):
                let page = try await database.changedKeys(after: cursor, limit: Self.pageSize)
                if page.hasMore {
                    // More than a page: everything may have changed.
                    position = .expired
                    try await takeNewest(&position, generation: generation)
                } else {
                    position = .after(page.next)
                    if !page.keys.isEmpty { deliver(change(of: page.keys), generation: generation) }
                }
            }
            failingSince = nil
            return interval
        } catch let error as RepositoryError where error.code == .cursorExpired {
            position = .expired
            return .zero
        } catch let error as RepositoryError where error.code == .locked || error.code == .unavailable {
            // A lock held past the busy timeout, a disk failing for a moment: the next check
            // reads from the same cursor. Failing for longer, it is not a moment.
            let since = failingSince ?? .now
            failingSince = since
            guard ContinuousClock.now - since < Self.failingLimit else {
                finish(throwing: error, generation: generation)
                return nil
            }
            return interval
        } catch is CancellationError {
            return nil
        } catch let error as RepositoryError where error.code == .closed {
            finish(throwing: nil, generation: generation)
            return nil
        } catch {
            finish(throwing: error, generation: generation)
            return nil
        }
    }

    /// Takes the log's newest change as the cursor, then gives the streams their marker: every
    /// stream after a prune or a bulk change, the new ones at the start.
    private func takeNewest(_ position: inout Position, generation: Int) async throws {
        // The cursor first: every commit after it is reported, so the marker after it covers
        // all that came before.
        let cursor = try await database.newestCursor()
        deliver(.invalidatedAll, generation: generation, startingOnly: position.isStarting)
        position = .after(cursor)
    }

    /// `.invalidated` with the IDs, or `.invalidatedAll` when a key does not read as an ID.
    private func change(of keys: [SQLiteKey?]) -> Change {
        var ids: [Entity.ID] = []
        ids.reserveCapacity(keys.count)
        for key in keys {
            guard let key, let id = try? key.id(as: Entity.ID.self) else { return .invalidatedAll }
            ids.append(id)
        }
        return .invalidated(ids)
    }

    /// The shortest interval the streams asked for, counting the check about to begin, or
    /// `nil` when `generation` is no longer the running task's (or no stream is left).
    private func interval(ifCurrent generation: Int) -> Duration? {
        state.withLock { state in
            guard state.generation == generation,
                let interval = state.subscribers.values.map(\.interval).min()
            else { return nil }
            // Counted here, so no check begins uncounted once the last stream has gone.
            checks.add(1, ordering: .relaxed)
            return interval
        }
    }

    /// Yields `change` to every stream, or with `startingOnly`, the starting marker to the
    /// streams that have not had it, and marks the task as holding a cursor.
    private func deliver(_ change: Change, generation: Int, startingOnly: Bool = false) {
        state.withLock { state in
            guard state.generation == generation else { return }
            state.following = true
            for (token, subscriber) in state.subscribers {
                if startingOnly && subscriber.started { continue }
                subscriber.continuation.yield(change)
                state.subscribers[token]?.started = true
            }
        }
    }

    /// Ends every stream quietly, at once: the repository is closing.
    func finishAll() {
        let generation = state.withLock { $0.generation }
        finish(throwing: nil, generation: generation)
    }

    /// Ends every stream, by throwing `error` when given; the next stream starts a new task.
    private func finish(throwing error: (any Error)?, generation: Int) {
        let subscribers = state.withLock { state -> [Subscriber] in
            guard state.generation == generation else { return [] }
            state.task?.cancel()
            let subscribers = Array(state.subscribers.values)
            state.subscribers.removeAll()
            state.task = nil
            state.following = false
            state.generation += 1
            return subscribers
        }
        for subscriber in subscribers { subscriber.continuation.finish(throwing: error) }
    }
}
