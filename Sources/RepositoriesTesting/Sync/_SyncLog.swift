import Repositories
import Synchronization

/// What happened in one sequence, in order: the changes devices acknowledged, the writes
/// the remote acknowledged, the merges the conflict policy made, and the copies devices read.
final class _SyncLog<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    enum Kind: Sendable {
        /// A device's write returned: the change is acknowledged to the app.
        case acknowledged
        /// A write call to the remote returned: the remote acknowledged the change (having
        /// applied it, or replaying an earlier answer under the same idempotency key).
        case landed
        /// The remote applied the change, whether or not its answer reached the device.
        case applied
        /// The merge closure returned this entity on the device.
        case merged
        /// The device read the remote's copy of one ID (`nil`: it had none), so a change
        /// of the device that matches it was in effect on the remote then.
        case observed
    }

    struct Event: Sendable {
        var kind: Kind
        var device: Int
        var id: Entity.ID
        /// The entity saved, or `nil` for a delete.
        var value: Entity?
    }

    private let state = Mutex<[Event]>([])
    /// The answer the remote gave each idempotency key it applied something under: `nil`
    /// for a success, else the refusal; a key seen again gets it without anything applied.
    private let answers = Mutex<[String: RepositoryError?]>([:])

    func answer(for key: String) -> RepositoryError?? { answers.withLock { $0[key] } }

    func remember(_ answer: RepositoryError?, for key: String?) {
        guard let key else { return }
        answers.withLock { $0[key] = .some(answer) }
    }

    var events: [Event] { state.withLock { $0 } }

    func append(_ kind: Kind, device: Int, _ changes: [(id: Entity.ID, value: Entity?)]) {
        state.withLock { events in
            events += changes.map { Event(kind: kind, device: device, id: $0.id, value: $0.value) }
        }
    }
}

/// The hostile behaviours of ``SyncConformanceOptions`` that the link plays, with their dice.
struct _SyncWeather<Entity: Sendable>: Sendable {
    var lostAnswerProbability: Double = 0
    var halfAppliedBatchProbability: Double = 0
    var normalize: (@Sendable (Entity) -> Entity)?
    var seed: UInt64 = 0
}

/// The remote as one device reaches it: a network that can be switched off, answers that
/// can be lost and batches applied in part (``SyncConformanceOptions``), a server that
/// honours idempotency keys, and a record of every write the remote applied and acknowledged.
final class _SyncLink<Base: Repository>: Repository, Sendable {
    typealias Entity = Base.Entity
    typealias ID = Base.ID

    private struct State {
        var online = true
        var calm = false
        var random: SeededRandomNumberGenerator
    }

    let base: Base
    let device: Int
    let log: _SyncLog<Entity>
    let weather: _SyncWeather<Entity>
    private let state: Mutex<State>

    init(_ base: Base, device: Int, log: _SyncLog<Entity>, weather: _SyncWeather<Entity> = _SyncWeather()) {
        self.base = base
        self.device = device
        self.log = log
        self.weather = weather
        state = Mutex(
            State(random: SeededRandomNumberGenerator(seed: weather.seed &+ UInt64(device) &* 7_919)))
    }

    var online: Bool {
        get { state.withLock { $0.online } }
        set { state.withLock { $0.online = newValue } }
    }

    /// Ends the hostile behaviours, for the final syncs.
    func calmDown() { state.withLock { $0.calm = true } }

    private func reach() throws {
        guard online else {
            throw RepositoryError.unavailable("SyncConformance: device \(device + 1) is offline")
        }
    }

    /// Whether a behaviour with `probability` strikes now; draws only when it can.
    private func strikes(_ probability: Double) -> Bool {
        guard probability > 0 else { return false }
        return state.withLock { state in
            guard !state.calm else { return false }
            return Double.random(in: 0..<1, using: &state.random) < probability
        }
    }

    /// What the remote stores for `value`.
    private func stored(_ value: Entity) -> Entity { weather.normalize?(value) ?? value }

    private func applyOne(_ change: (id: ID, value: Entity?)) async throws {
        if let value = change.value {
            try await base.save(stored(value))
        } else {
            try await base.delete(id: change.id)
        }
    }

    private func write(_ changes: [(id: ID, value: Entity?)], _ body: () async throws -> Void) async throws {
        try reach()
        let key = IdempotencyKey.current
        if let key, let answer = log.answer(for: key) {
            // A key answered before: its first answer again, nothing applied.
            if let refusal = answer { throw refusal }
            log.append(.landed, device: device, changes)
            return
        }
        if changes.count > 1, strikes(weather.halfAppliedBatchProbability) {
            // Applied one change at a time, as a server taking one request per entity does:
            // each under the change's own key when the caller gave one, so a change applied
            // here and sent again later, alone or in another batch, is not applied twice.
            let applied = Array(changes.prefix(changes.count / 2))
            for change in applied {
                let itemKey = IdempotencyKey.forEntity(change.id)
                if let itemKey, log.answer(for: itemKey) != nil { continue }
                try await applyOne(change)
                log.append(.applied, device: device, [change])
                log.remember(nil, for: itemKey)
            }
            let refusal = RepositoryError(
                .rejected,
                reason:
                    "SyncConformance: the remote applied \(applied.count) of the batch's \(changes.count) changes one by one, then refused the next",
                httpStatus: 422)
            log.remember(refusal, for: key)
            throw refusal
        }
        try await body()
        log.append(.applied, device: device, changes)
        log.remember(nil, for: key)
        if strikes(weather.lostAnswerProbability) {
            throw RepositoryError.unavailable(
                "SyncConformance: the remote applied the write, then its answer was lost")
        }
        log.append(.landed, device: device, changes)
        // The answer holds what the remote stored, as a server's answer to a write does.
        for case let value? in changes.map(\.value) { WriteEcho.report(stored(value)) }
    }

    func fetch(id: ID) async throws -> Entity? {
        try reach()
        let copy = try await base.fetch(id: id)
        log.append(.observed, device: device, [(id, copy)])
        return copy
    }
    func fetchAll() async throws -> [Entity] {
        try reach()
        return try await base.fetchAll()
    }
    func fetch(ids: [ID]) async throws -> [Entity] {
        try reach()
        let copies = try await base.fetch(ids: ids)
        let byID = Dictionary(copies.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        log.append(.observed, device: device, ids.map { ($0, byID[$0]) })
        return copies
    }
    func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try reach()
        return try await base.fetch(query)
    }
    func count() async throws -> Int {
        try reach()
        return try await base.count()
    }
    func save(_ entity: Entity) async throws {
        try await write([(entity.id, entity)]) { try await base.save(stored(entity)) }
    }
    func save(contentsOf entities: [Entity]) async throws {
        try await write(entities.map { ($0.id, $0) }) {
            try await base.save(contentsOf: entities.map(stored))
        }
    }
    func delete(id: ID) async throws {
        try await write([(id, nil)]) { try await base.delete(id: id) }
    }
    func delete(ids: [ID]) async throws {
        try await write(ids.map { ($0, nil) }) { try await base.delete(ids: ids) }
    }
    func deleteAll() async throws {
        let ids = try await base.fetchAll().map(\.id)
        try await write(ids.map { ($0, nil) }) { try await base.deleteAll() }
    }
}

extension _SyncLink: ChangeFeedRepository where Base: ChangeFeedRepository {
    /// A page of the remote's feed, when the device is online; the answer may be lost, as a
    /// write's may, and then the page is not applied and its cursor not kept.
    func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        try await page { try await base.changes(since: cursor, limit: limit) }
    }

    /// A page of the remote's feed for `subset`, as ``changes(since:limit:)``.
    func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        try await page { try await base.changes(since: cursor, limit: limit, in: subset) }
    }

    /// The page `read` answers, when the device is online and the answer is not lost.
    private func page(_ read: () async throws -> ChangePage<Entity, ID>) async throws -> ChangePage<
        Entity, ID
    > {
        try reach()
        let page = try await read()
        if strikes(weather.lostAnswerProbability) {
            throw RepositoryError.unavailable("SyncConformance: the page of changes was lost on its way")
        }
        return page
    }

    /// Whether the remote serves a feed.
    var servesChangeFeed: Bool { base.servesChangeFeed }
}
