import Repositories
import Synchronization

/// A repository that fails, or slows down, on command, then passes calls to a real
/// repository beneath. Use it to drive every partial-failure path of the code above it.
///
/// ```swift
/// let remote = FaultInjectingRepository(InMemoryRepository<Product>())
/// remote.failNext(2, of: .fetchAll, with: RepositoryError.unavailable("offline"))
/// remote.addLatency(.seconds(3), to: [.fetch])          // sleeps on the clock given at init
/// remote.injectRandomFaults(probability: 0.1, seed: 7)   // reproducible chaos
/// ```
///
/// A fault fires before the call reaches the base (so nothing is written), unless it was
/// queued with `when: .afterBase`, which lets the call land and then throws, as a lost
/// response does.
public final class FaultInjectingRepository<Base: Repository>: Repository {
    /// The wrapped repository's entity.
    public typealias Entity = Base.Entity
    /// The wrapped repository's ID.
    public typealias ID = Base.ID

    /// When an injected fault throws, relative to the call beneath.
    public enum Timing: Sendable {
        /// Throw instead of calling the base: nothing happens beneath.
        case beforeBase
        /// Call the base, then throw: the change lands but the caller hears it failed.
        case afterBase
    }

    private struct Fault {
        var error: any Error
        var timing: Timing
    }

    private struct RandomFaults {
        var probability: Double
        var generator: SeededRandomNumberGenerator
        var error: any Error
        var operations: Set<RepositoryOperation>
    }

    private struct State {
        var queued: [RepositoryOperation: [Fault]] = [:]
        var latency: [RepositoryOperation: Duration] = [:]
        var random: RandomFaults?
        var injected = 0
    }

    /// The repository every call that is not failed is passed to.
    public let base: Base
    private let clock: any Clock<Duration>
    private let state = Mutex(State())

    /// Wraps `base`; latency sleeps on `clock` (pass a `ManualClock` to control it).
    public init(_ base: Base, clock: some Clock<Duration> = ContinuousClock()) {
        self.base = base
        self.clock = clock
    }

    /// How many faults have been thrown so far.
    public var injectedFaultCount: Int { state.withLock { $0.injected } }

    /// Makes the next `count` calls of `operation` throw `error`.
    public func failNext(
        _ count: Int = 1, of operation: RepositoryOperation, with error: any Error,
        when timing: Timing = .beforeBase
    ) {
        state.withLock { state in
            state.queued[operation, default: []] += Array(
                repeating: Fault(error: error, timing: timing), count: max(0, count))
        }
    }

    /// Makes the next `count` calls of each of `operations` throw `error`.
    public func failNext(
        _ count: Int = 1, of operations: Set<RepositoryOperation>, with error: any Error,
        when timing: Timing = .beforeBase
    ) {
        for operation in operations { failNext(count, of: operation, with: error, when: timing) }
    }

    /// Makes each call of `operations` wait `duration` on the clock before it runs.
    public func addLatency(
        _ duration: Duration, to operations: Set<RepositoryOperation> = Set(RepositoryOperation.allCases)
    ) {
        state.withLock { state in
            for operation in operations { state.latency[operation] = duration }
        }
    }

    /// Makes each call of `operations` fail with `probability`, drawn from a generator
    /// seeded with `seed`, so a failing run can be replayed.
    public func injectRandomFaults(
        probability: Double, seed: UInt64,
        error: any Error = RepositoryError.unavailable("A fault injected at random"),
        operations: Set<RepositoryOperation> = Set(RepositoryOperation.allCases)
    ) {
        state.withLock { state in
            state.random = RandomFaults(
                probability: probability, generator: SeededRandomNumberGenerator(seed: seed), error: error,
                operations: operations)
        }
    }

    /// Clears every queued fault, latency and random fault.
    public func reset() {
        state.withLock { state in
            state.queued = [:]
            state.latency = [:]
            state.random = nil
        }
    }

    private func intercept<T>(_ operation: RepositoryOperation, _ body: () async throws -> T) async throws
        -> T
    {
        let (delay, fault) = state.withLock { state -> (Duration?, Fault?) in
            var fault: Fault?
            if var queue = state.queued[operation], !queue.isEmpty {
                fault = queue.removeFirst()
                state.queued[operation] = queue
            } else if var random = state.random, random.operations.contains(operation) {
                if Double.random(in: 0..<1, using: &random.generator) < random.probability {
                    fault = Fault(error: random.error, timing: .beforeBase)
                }
                state.random = random
            }
            if fault != nil { state.injected += 1 }
            return (state.latency[operation], fault)
        }
        if let delay { try await clock.sleep(for: delay) }
        guard let fault else { return try await body() }
        if fault.timing == .afterBase { _ = try await body() }
        throw fault.error
    }

    /// Fetches from ``base`` unless a fault is due.
    public func fetch(id: ID) async throws -> Entity? {
        try await intercept(.fetch) { try await base.fetch(id: id) }
    }

    /// Fetches from ``base`` unless a fault is due.
    public func fetchAll() async throws -> [Entity] {
        try await intercept(.fetchAll) { try await base.fetchAll() }
    }

    /// Saves to ``base`` unless a fault is due.
    public func save(_ entity: Entity) async throws {
        try await intercept(.save) { try await base.save(entity) }
    }

    /// Saves to ``base`` unless a fault is due; the base's batch stays atomic.
    public func save(contentsOf entities: [Entity]) async throws {
        try await intercept(.saveContentsOf) { try await base.save(contentsOf: entities) }
    }

    /// Deletes from ``base`` unless a fault is due.
    public func delete(id: ID) async throws {
        try await intercept(.delete) { try await base.delete(id: id) }
    }

    /// Deletes from ``base`` unless a fault is due.
    public func deleteAll() async throws {
        try await intercept(.deleteAll) { try await base.deleteAll() }
    }

    /// Fetches from ``base`` unless a fault is due.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try await intercept(.fetchIDs) { try await base.fetch(ids: ids) }
    }

    /// Queries ``base`` unless a fault is due.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try await intercept(.fetchQuery) { try await base.fetch(query) }
    }

    /// Counts ``base`` unless a fault is due.
    public func count() async throws -> Int {
        try await intercept(.count) { try await base.count() }
    }

    /// Counts what ``base`` answers to the query unless a fault is due.
    public func count(_ query: Query<Entity>) async throws -> Int {
        try await intercept(.countQuery) { try await base.count(query) }
    }

    /// Deletes from ``base`` unless a fault is due.
    public func delete(ids: [ID]) async throws {
        try await intercept(.deleteIDs) { try await base.delete(ids: ids) }
    }
}

extension FaultInjectingRepository: ChangeFeedRepository where Base: ChangeFeedRepository {
    /// Reads a page of ``base``'s change feed unless a fault is due; a page counts as a
    /// `fetchAll()` (the pull's read), so the faults and latency set for that operation
    /// apply to it too.
    public func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await intercept(.fetchAll) { try await base.changes(since: cursor, limit: limit) }
    }

    /// Reads a page of ``base``'s change feed for `subset` unless a fault is due, as
    /// ``changes(since:limit:)``.
    public func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        try await intercept(.fetchAll) { try await base.changes(since: cursor, limit: limit, in: subset) }
    }

    /// Whether ``base`` serves a feed.
    public var servesChangeFeed: Bool { base.servesChangeFeed }
}
