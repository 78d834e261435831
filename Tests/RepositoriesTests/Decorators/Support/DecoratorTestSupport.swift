import Foundation
import Repositories
import RepositoriesTesting
import Synchronization
import Testing

typealias Item = ConformanceEntity

/// The fixture entity with ID `index` at `revision`.
func item(_ index: Int, _ revision: Int = 0) -> Item {
    .make(index: index, revision: revision)
}

/// A fixed wall-clock date for tests that stamp cache entries.
let referenceDate = Date(timeIntervalSince1970: 1_700_000_000)

/// A value test tasks share.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value { mutex.withLock { $0 } }
    func update(_ change: (inout Value) -> Void) { mutex.withLock { change(&$0) } }
}

/// Records every `TierFailure` a decorator reports.
final class TierFailureLog: Sendable {
    private let failures = Shared<[TierFailure]>([])
    var all: [TierFailure] { failures.value }
    var stages: [TierFailure.Stage] { all.map(\.stage) }
    @Sendable func record(_ failure: TierFailure) { failures.update { $0.append(failure) } }
}

/// Yields until `condition` holds or five minutes pass; returns whether it held. Tests use it
/// to wait for other tasks to reach a point without sleeping. The bound is time, not a count
/// of yields: while the work waited for runs on another thread (a file's fsync), a yield can
/// return at once, and on a busy machine any count ran out first.
func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(300)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

/// Yields `yields` times or until `condition` holds; returns whether it held. For a test that
/// expects it not to: the other tasks get that many turns to make it hold.
func holdsWithin(_ yields: Int, _ condition: () -> Bool) async -> Bool {
    for _ in 0..<yields {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

/// A repository whose chosen operations stop and wait for the test before answering: after
/// reading from the base (`afterBase`, so the caller holds an old value), or before
/// (`beforeBase`, so the call has not reached the base yet).
final class GatedRepository<Base: Repository>: Repository {
    typealias Entity = Base.Entity
    typealias ID = Base.ID

    enum Timing: Sendable {
        case beforeBase
        case afterBase
    }

    private struct State {
        var gated: [RepositoryOperation: Timing] = [:]
        var remaining: [RepositoryOperation: Int] = [:]
        var waiting: [CheckedContinuation<Void, Never>] = []
        var arrived = 0
    }

    let base: Base
    private let state = Mutex(State())

    init(_ base: Base) { self.base = base }

    /// Makes calls of `operations` wait at `timing` until ``open()``: every call, or only the
    /// next `times` calls of each.
    func close(_ operations: Set<RepositoryOperation>, at timing: Timing, times: Int? = nil) {
        state.withLock { state in
            for operation in operations {
                state.gated[operation] = timing
                state.remaining[operation] = times
            }
        }
    }

    /// How many calls are waiting at the gate.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// How many calls have reached the gate so far.
    var arrivedCount: Int { state.withLock { $0.arrived } }

    /// Lets every waiting call go on, and stops gating.
    func open() {
        let waiting = state.withLock { state in
            state.gated = [:]
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    private func wait(_ operation: RepositoryOperation, _ timing: Timing) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let gated = state.withLock { state in
                guard state.gated[operation] == timing else { return false }
                if let left = state.remaining[operation] {
                    state.remaining[operation] = left - 1
                    if left <= 1 { state.gated[operation] = nil }
                }
                state.arrived += 1
                state.waiting.append(continuation)
                return true
            }
            if !gated { continuation.resume() }
        }
    }

    private func pass<T>(_ operation: RepositoryOperation, _ body: () async throws -> T) async throws -> T {
        await wait(operation, .beforeBase)
        let result = try await body()
        await wait(operation, .afterBase)
        return result
    }

    func fetch(id: ID) async throws -> Entity? { try await pass(.fetch) { try await base.fetch(id: id) } }
    func fetchAll() async throws -> [Entity] { try await pass(.fetchAll) { try await base.fetchAll() } }
    func save(_ entity: Entity) async throws { try await pass(.save) { try await base.save(entity) } }
    func save(contentsOf entities: [Entity]) async throws {
        try await pass(.saveContentsOf) { try await base.save(contentsOf: entities) }
    }
    func delete(id: ID) async throws { try await pass(.delete) { try await base.delete(id: id) } }
    func deleteAll() async throws { try await pass(.deleteAll) { try await base.deleteAll() } }
    func fetch(ids: [ID]) async throws -> [Entity] {
        try await pass(.fetchIDs) { try await base.fetch(ids: ids) }
    }
    func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try await pass(.fetchQuery) { try await base.fetch(query) }
    }
    func count() async throws -> Int { try await pass(.count) { try await base.count() } }
    func count(_ query: Query<Entity>) async throws -> Int {
        try await pass(.countQuery) { try await base.count(query) }
    }
    func delete(ids: [ID]) async throws { try await pass(.deleteIDs) { try await base.delete(ids: ids) } }
}

/// Expects `body` to throw a `RepositoryError` with `code`, and returns it.
@discardableResult
func expectRepositoryError(
    _ code: RepositoryError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> RepositoryError? {
    do {
        try await body()
        Issue.record(
            "expected RepositoryError \(code), but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as RepositoryError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected RepositoryError \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The error the tests inject for an unreachable source.
let offline = RepositoryError.unavailable("offline (injected)")
