import Repositories
import RepositoriesTesting
import Synchronization
import Testing

/// The law every two-tier decorator keeps: when writes of one key overlap, the second store
/// ends with what the primary holds, whatever order the primary's answers come back in. A
/// network remote answers late, so overlapping saves are the normal case.
@Suite struct OverlappingWritesTests {
    /// A two-tier stack over a primary whose write answers the test holds, and a way to read
    /// what its second store serves for an ID.
    struct Stack: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable (_ primary: AnswerHeldRepository<InMemoryRepository<Item>>) -> Built
        var testDescription: String { name }
    }

    struct Built: Sendable {
        let repository: any Repository<Item, Int>
        /// What the second store would serve for an ID without asking the primary.
        let secondCopy: @Sendable (Int) async throws -> Item?
    }

    static let stacks: [Stack] = [
        Stack(name: "writeThrough(to:)") { primary in
            let cache = InMemoryRepository<Item>()
            return Built(
                repository: primary.writeThrough(to: cache), secondCopy: { try await cache.fetch(id: $0) })
        },
        Stack(name: "fallback(to:)") { primary in
            let local = InMemoryRepository<Item>()
            return Built(
                repository: primary.fallback(to: local), secondCopy: { try await local.fetch(id: $0) })
        },
        Stack(name: "cached(in:timeToLive:)") { primary in
            let cache = InMemoryRepository<Cached<Item>>()
            let items = primary.cached(in: cache, timeToLive: .seconds(3600))
            return Built(
                repository: items,
                secondCopy: { id in
                    // A cache-aside write drops the copy; the next read fills it from the primary.
                    _ = try await items.fetch(id: id)
                    return try await cache.fetch(id: id)?.value
                })
        },
    ]

    @Test(arguments: stacks)
    func aLaterSaveWhoseAnswerComesFirstIsWhatBothStoresEndWith(_ stack: Stack) async throws {
        let store = InMemoryRepository<Item>()
        let primary = AnswerHeldRepository(store, heldAnswers: 2)
        let built = stack.make(primary)
        let items = built.repository
        let first = Task { try await items.save(item(1, 1)) }
        await primary.waitForArrival(of: 0)
        let second = Task { try await items.save(item(1, 2)) }
        // The second save's answer is let through first: were it sent now, it would land
        // second and answer first, and the first save's late answer would then overwrite
        // its copy.
        primary.releaseAnswer(1)
        let secondFinishedFirst = await holdsWithin(2_000) { primary.arrivals == 2 }
        #expect(!secondFinishedFirst, "an overlapping write of one key waits for the earlier one")
        primary.releaseAnswer(0)
        try await first.value
        try await second.value
        let held = try await store.fetch(id: 1)
        #expect(held == item(1, 2))
        #expect(try await built.secondCopy(1) == held, "the second store ends with what the primary holds")
        #expect(try await items.fetch(id: 1) == held)
    }

    @Test(arguments: stacks)
    func manyOverlappingWritesLeaveBothStoresAgreeing(_ stack: Stack) async throws {
        let store = InMemoryRepository<Item>()
        let primary = AnswerHeldRepository(store, heldAnswers: 0, seed: 7)
        let built = stack.make(primary)
        let items = built.repository
        let keys = 0..<4
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<64 {
                group.addTask {
                    let key = keys.lowerBound + writer % keys.count
                    switch writer % 5 {
                    case 0:
                        let next = (key + 1) % keys.count
                        try await items.save(contentsOf: [item(key, writer), item(next, writer)])
                    case 1: try await items.delete(id: key)
                    default: try await items.save(item(key, writer))
                    }
                }
            }
            try await group.waitForAll()
        }
        for key in keys {
            let held = try await store.fetch(id: key)
            #expect(try await built.secondCopy(key) == held, "key \(key)")
        }
    }
}

/// A primary that applies each write the moment it arrives and then holds its answer: the
/// first `heldAnswers` writes wait until the test releases them (in an order it chooses);
/// later ones yield a seeded random number of times, so answers come back out of order.
final class AnswerHeldRepository<Base: Repository>: Repository, Sendable {
    typealias Entity = Base.Entity
    typealias ID = Base.ID

    private struct State {
        var arrivals = 0
        var released: Set<Int> = []
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var arrivalWaiters: [Int: [CheckedContinuation<Void, Never>]] = [:]
        var random: SeededRandomNumberGenerator
    }

    let base: Base
    private let heldAnswers: Int
    private let state: Mutex<State>

    init(_ base: Base, heldAnswers: Int, seed: UInt64 = 1) {
        self.base = base
        self.heldAnswers = heldAnswers
        self.state = Mutex(State(random: SeededRandomNumberGenerator(seed: seed)))
    }

    /// How many writes have reached the primary.
    var arrivals: Int { state.withLock { $0.arrivals } }

    /// Waits until write `index` (from 0, in order of arrival) has been applied.
    func waitForArrival(of index: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let arrived = state.withLock { state in
                if state.arrivals > index { return true }
                state.arrivalWaiters[index, default: []].append(continuation)
                return false
            }
            if arrived { continuation.resume() }
        }
    }

    /// Lets write `index` answer, now or as soon as it arrives.
    func releaseAnswer(_ index: Int) {
        let waiting = state.withLock { state in
            state.released.insert(index)
            return state.waiting.removeValue(forKey: index)
        }
        waiting?.resume()
    }

    private func write(_ body: () async throws -> Void) async throws {
        try await body()
        let (index, arrived, yields) = state.withLock { state in
            let index = state.arrivals
            state.arrivals += 1
            let arrived = state.arrivalWaiters.removeValue(forKey: index) ?? []
            return (index, arrived, Int.random(in: 0..<50, using: &state.random))
        }
        for waiter in arrived { waiter.resume() }
        guard index < heldAnswers else {
            for _ in 0..<yields { await Task.yield() }
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let released = state.withLock { state in
                if state.released.contains(index) { return true }
                state.waiting[index] = continuation
                return false
            }
            if released { continuation.resume() }
        }
    }

    func fetch(id: ID) async throws -> Entity? { try await base.fetch(id: id) }
    func fetchAll() async throws -> [Entity] { try await base.fetchAll() }
    func fetch(ids: [ID]) async throws -> [Entity] { try await base.fetch(ids: ids) }
    func fetch(_ query: Query<Entity>) async throws -> [Entity] { try await base.fetch(query) }
    func count() async throws -> Int { try await base.count() }
    func save(_ entity: Entity) async throws { try await write { try await base.save(entity) } }
    func save(contentsOf entities: [Entity]) async throws {
        try await write { try await base.save(contentsOf: entities) }
    }
    func delete(id: ID) async throws { try await write { try await base.delete(id: id) } }
    func delete(ids: [ID]) async throws { try await write { try await base.delete(ids: ids) } }
    func deleteAll() async throws { try await write { try await base.deleteAll() } }
}
