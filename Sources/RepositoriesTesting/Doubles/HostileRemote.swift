import Repositories
import Synchronization

/// An in-memory server that behaves like a real one: it rewrites what it stores, applies a
/// batch item by item and stops midway, replays an idempotency key's first answer, loses
/// answers, lands writes late and goes offline, and counts how often it applied each
/// change.
///
/// A fixture that echoes every entity byte for byte and answers every request on time
/// lets a sync engine pass tests that a real server fails. Put this one behind the code under
/// test and assert on ``timesApplied(_:)`` and ``overapplied``, not on keys:
///
/// ```swift
/// let remote = HostileRemote<Note>()
/// remote.normalize { note in
///     var note = note
///     note.title = note.title.lowercased()  // the server keeps titles in lower case
///     return note
/// }
/// remote.loseNextAnswers(1)  // the next write lands, the caller hears `unavailable`
/// let notes = remote.offlineFirst(
///     local: file, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
/// try await notes.save(note)
/// await #expect(throws: RepositoryError.self) { try await notes.sync() }  // the answer is lost
/// try await notes.sync()
/// #expect(remote.timesApplied(note) == 1)
/// #expect(remote.overapplied.isEmpty)
/// ```
///
/// Every behaviour is off until switched on: by default it is an honest server that keeps
/// what it is sent, applies a batch whole or not at all, and honours idempotency keys.
///
/// - **Echoes.** A write's answer holds what the remote stored (normalised and stamped), as
///   a server's answer to a `PUT` does: it reports it to the task's `WriteEcho`, a replay
///   included, a lost answer not.
/// - **Idempotency keys.** A write carries `IdempotencyKey.current`. When
///   ``honoursIdempotencyKeys`` is on (the default), a key the remote answered before gets
///   that first answer again (success, or the refusal of a batch applied in part) and
///   nothing is applied, whatever the request holds now; a request that applied nothing (a
///   refusal, a conflict) is not remembered, so it may be sent again.
/// - **Version tags.** With ``versionTags`` on, ``fetchTagged(id:)`` returns each entity's
///   tag, and `save(_:ifMatch:)` and `delete(id:ifMatch:)` throw `conflict` when the copy
///   moved. Off, it sends no tags and ignores `If-Match`, as a server without `ETag`s.
/// - **Creates.** ``saveIfAbsent(_:)`` throws `conflict` and applies nothing when the remote
///   holds the ID, with version tags on or off: a server needs no `ETag` to know an ID it
///   holds (`If-None-Match: *`, or a `POST` that refuses the ID). A server with no
///   conditional writes at all is not modelled; against one, nothing a client does stops a
///   create that lands late from overwriting a newer write.
/// - **Counting.** Each applied save or delete is an ``Application``, identified by the ID
///   and the entity as sent (before normalising), so ``timesApplied(_:)`` counts a change
///   however many keys it came under. Every write request is in ``requests`` with its key
///   and ``Outcome``.
///
/// Thread-safe; random answer loss is drawn from a seeded generator, so a run replays.
public final class HostileRemote<Entity: Identifiable & Sendable & Equatable>: VersionTaggingRepository,
    Sendable
where Entity.ID: Sendable {
    /// The entity's ID.
    public typealias ID = Entity.ID

    private enum Change {
        case save(Entity)
        case delete(ID)

        var id: ID {
            switch self {
            case .save(let entity): entity.id
            case .delete(let id): id
            }
        }
        var value: Entity? {
            if case .save(let entity) = self { return entity }
            return nil
        }
    }

    /// A write as it arrived: what it changes, under which key and tag.
    private struct Incoming {
        var operation: RepositoryOperation
        var changes: [Change]
        var key: String?
        var ifMatch: String?
        /// Whether the write applies only if the remote holds no copy (``saveIfAbsent(_:)``).
        var ifAbsent = false
        /// `deleteAll()`: its changes are taken when it is applied.
        var deletesAll = false
        /// Each change's own key in a batch, by the entity's ID described
        /// (`IdempotencyKey.perEntity`): a change whose key the remote applied before is
        /// not applied again.
        var itemKeys: [String: String] = IdempotencyKey.perEntity
    }

    private struct RandomLoss {
        var probability: Double
        var generator: SeededRandomNumberGenerator
    }

    private struct State {
        var order: [ID] = []
        var entities: [ID: Entity] = [:]
        var versions: [ID: Int] = [:]
        var writes = 0
        var versionTags: Bool
        var online = true
        var honoursKeys = true
        var itemByItem = false
        var normalize: (@Sendable (Entity) -> Entity)?
        var stamp: (@Sendable (Entity, Int) -> Entity)?
        var refused: [ID: RepositoryError] = [:]
        var answers: [String: RepositoryError?] = [:]
        /// What a key's first success stored, echoed again when the key is replayed.
        var echoes: [String: [Entity]] = [:]
        var lostAnswers: [RepositoryError] = []
        var randomLoss: RandomLoss?
        var lateCount = 0
        var held: [Incoming] = []
        var applications: [Application] = []
        var requests: [Request] = []
    }

    private let state: Mutex<State>

    /// A remote holding `entities` (not counted as applications), with version tags on or off.
    public init(_ entities: [Entity] = [], versionTags: Bool = false) {
        var initial = State(versionTags: versionTags)
        for entity in entities {
            if initial.entities[entity.id] == nil { initial.order.append(entity.id) }
            initial.writes += 1
            initial.entities[entity.id] = entity
            initial.versions[entity.id] = initial.writes
        }
        state = Mutex(initial)
    }

    // MARK: Switches

    /// Whether the remote tags versions (an `ETag` on each read) and honours `If-Match`.
    public var versionTags: Bool {
        get { state.withLock { $0.versionTags } }
        set { state.withLock { $0.versionTags = newValue } }
    }

    /// Whether the remote answers; offline, every call throws `unavailable` and nothing
    /// happens.
    public var isOnline: Bool {
        get { state.withLock { $0.online } }
        set { state.withLock { $0.online = newValue } }
    }

    /// Whether a repeated idempotency key replays the first answer without applying again
    /// (on by default).
    public var honoursIdempotencyKeys: Bool {
        get { state.withLock { $0.honoursKeys } }
        set { state.withLock { $0.honoursKeys = newValue } }
    }

    /// Whether a batch is applied item by item with no transaction: a refused item throws
    /// after the items before it were applied. Off (the default), a batch with a refused item
    /// applies nothing. On, each item honours its change's own key when the caller gave one
    /// (`IdempotencyKey.perEntity`), as a server taking one request per entity does: an item
    /// whose key was applied before, in a batch or alone, is not applied again.
    public var appliesBatchesItemByItem: Bool {
        get { state.withLock { $0.itemByItem } }
        set { state.withLock { $0.itemByItem = newValue } }
    }

    /// Rewrites every saved entity before storing it, as a server that rounds dates to
    /// microseconds or lowercases an email does. Counting keeps the entity as sent.
    public func normalize(_ transform: @escaping @Sendable (Entity) -> Entity) {
        state.withLock { $0.normalize = transform }
    }

    /// Stamps every saved entity after normalising it, as a server that sets `updated_at`
    /// does; `transform` gets the entity and the number of changes the remote has applied,
    /// this one included (a server clock that ticks once a write).
    public func stamp(_ transform: @escaping @Sendable (_ entity: Entity, _ write: Int) -> Entity) {
        state.withLock { $0.stamp = transform }
    }

    /// Refuses every write of `id` with `error` (a 422 by default). In a batch, the items
    /// before it are applied first when ``appliesBatchesItemByItem`` is on.
    public func refuse(
        _ id: ID,
        with error: RepositoryError = RepositoryError(
            .rejected, reason: "The server refuses this entity as invalid (a refusal the test asked for)",
            httpStatus: 422)
    ) {
        state.withLock { $0.refused[id] = error }
    }

    /// Accepts writes of `id` again.
    public func accept(_ id: ID) {
        state.withLock { _ = $0.refused.removeValue(forKey: id) }
    }

    /// The next `count` writes are applied and then answered with `error`, as a response lost
    /// on the way back: the remote holds the change (and remembers its key's answer as a
    /// success), the caller hears a transient failure.
    public func loseNextAnswers(
        _ count: Int = 1,
        error: RepositoryError = .unavailable("The connection dropped before the answer arrived (test)")
    ) {
        state.withLock { $0.lostAnswers += Array(repeating: error, count: max(0, count)) }
    }

    /// Loses the answer of each applied write with `probability`, drawn from a generator
    /// seeded with `seed`; the caller hears `unavailable`.
    public func loseAnswers(probability: Double, seed: UInt64) {
        state.withLock {
            $0.randomLoss = RandomLoss(
                probability: probability, generator: SeededRandomNumberGenerator(seed: seed))
        }
    }

    /// Stops losing answers, queued or random.
    public func stopLosingAnswers() {
        state.withLock { state in
            state.lostAnswers = []
            state.randomLoss = nil
        }
    }

    /// The next `count` writes answer late: the caller hears `timedOut` at once and nothing
    /// is applied yet; each lands (key checked then, as a real request arriving late) when
    /// ``releaseLateWrites()`` is called, whatever was written meanwhile. The count lasts
    /// until that many writes have come, or ``stopAnsweringLate()``.
    public func answerLate(next count: Int = 1) {
        state.withLock { $0.lateCount += max(0, count) }
    }

    /// Answers every later write on time: the writes ``answerLate(next:)`` still had to hold
    /// are not held. Writes held already stay held until ``releaseLateWrites()``.
    public func stopAnsweringLate() {
        state.withLock { $0.lateCount = 0 }
    }

    /// Lands every write held by ``answerLate(next:)``, in the order they were made.
    ///
    /// - Returns: how many held writes there were.
    @discardableResult
    public func releaseLateWrites() -> Int {
        state.withLock { state in
            let held = state.held
            state.held = []
            for incoming in held { _ = Self.process(incoming, in: &state, mayLoseAnswer: false) }
            return held.count
        }
    }

    // MARK: Counting

    /// Every change applied, in order.
    public var applications: [Application] { state.withLock { $0.applications } }

    /// Every write request, in the order it arrived (a late one when it was sent, and again
    /// when it landed).
    public var requests: [Request] { state.withLock { $0.requests } }

    /// How many times a save of exactly `entity` (as sent) was applied.
    public func timesApplied(_ entity: Entity) -> Int {
        state.withLock { $0.applications.filter { $0.value == entity }.count }
    }

    /// How many times a delete of `id` was applied (deleting an absent entity included).
    public func timesDeleted(_ id: ID) -> Int {
        state.withLock { $0.applications.filter { $0.value == nil && $0.id == id }.count }
    }

    /// The saves applied more than once, and the deletes of an ID applied more than once
    /// with no save of it between them: each a change the remote took twice.
    public var overapplied: [Overapplication] {
        state.withLock { state in
            var result: [Overapplication] = []
            var deletesInARow: [ID: Int] = [:]
            for (index, application) in state.applications.enumerated() {
                if let value = application.value {
                    deletesInARow[application.id] = 0
                    let earlier = state.applications[..<index].contains { $0.value == value }
                    let count = state.applications.filter { $0.value == value }.count
                    if count > 1, !earlier {
                        result.append(Overapplication(id: application.id, value: value, count: count))
                    }
                } else {
                    deletesInARow[application.id, default: 0] += 1
                    if deletesInARow[application.id] == 2 {
                        result.append(Overapplication(id: application.id, value: nil, count: 2))
                    } else if let count = deletesInARow[application.id], count > 2,
                        let last = result.lastIndex(where: { $0.id == application.id && $0.value == nil })
                    {
                        result[last].count = count
                    }
                }
            }
            return result
        }
    }

    // MARK: Reads

    private func reach(_ operation: RepositoryOperation) throws {
        guard isOnline else {
            throw RepositoryError.unavailable("HostileRemote is offline (\(operation))")
        }
    }

    /// The stored copy of `id`.
    public func fetch(id: ID) async throws -> Entity? {
        try reach(.fetch)
        return state.withLock { $0.entities[id] }
    }

    /// Every stored entity, in order of first insertion.
    public func fetchAll() async throws -> [Entity] {
        try reach(.fetchAll)
        return state.withLock { state in state.order.compactMap { state.entities[$0] } }
    }

    /// The stored copies of `ids`, in the order asked, absent and repeated ones skipped.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try reach(.fetchIDs)
        return state.withLock { state in
            var seen = Set<ID>()
            return ids.compactMap { seen.insert($0).inserted ? state.entities[$0] : nil }
        }
    }

    /// The stored copy of `id` with its version's tag (`nil` with ``versionTags`` off).
    public func fetchTagged(id: ID) async throws -> TaggedEntity<Entity>? {
        try reach(.fetch)
        return state.withLock { state in
            guard let entity = state.entities[id] else { return nil }
            return TaggedEntity(entity, tag: state.versionTags ? Self.tag(state.versions[id] ?? 0) : nil)
        }
    }

    // MARK: Writes

    /// Saves `entity`, with every behaviour switched on applied.
    public func save(_ entity: Entity) async throws {
        try write(Incoming(operation: .save, changes: [.save(entity)], key: IdempotencyKey.current))
    }

    /// Saves `entities`: whole or not at all, or item by item with
    /// ``appliesBatchesItemByItem``.
    public func save(contentsOf entities: [Entity]) async throws {
        try write(
            Incoming(
                operation: .saveContentsOf, changes: entities.map { .save($0) }, key: IdempotencyKey.current))
    }

    /// Deletes `id`; an absent one is not an error (and still counts as applied).
    public func delete(id: ID) async throws {
        try write(Incoming(operation: .delete, changes: [.delete(id)], key: IdempotencyKey.current))
    }

    /// Deletes `ids`, as ``save(contentsOf:)`` saves.
    public func delete(ids: [ID]) async throws {
        try write(
            Incoming(operation: .deleteIDs, changes: ids.map { .delete($0) }, key: IdempotencyKey.current))
    }

    /// Deletes every stored entity.
    public func deleteAll() async throws {
        try write(Incoming(operation: .deleteAll, changes: [], key: IdempotencyKey.current, deletesAll: true))
    }

    /// Saves `entity` if its copy still has the version `tag` names; with ``versionTags`` off
    /// the tag is ignored.
    ///
    /// - Throws: `conflict` when the copy moved since `tag`.
    public func save(_ entity: Entity, ifMatch tag: String) async throws {
        try write(
            Incoming(operation: .save, changes: [.save(entity)], key: IdempotencyKey.current, ifMatch: tag))
    }

    /// Saves `entity` only if the remote holds no copy of its ID, with ``versionTags`` on or
    /// off.
    ///
    /// - Throws: `conflict` when the remote holds a copy (checked when the write lands, so a
    ///   late one is refused if the ID was created meanwhile); nothing is applied then.
    public func saveIfAbsent(_ entity: Entity) async throws {
        try write(
            Incoming(operation: .save, changes: [.save(entity)], key: IdempotencyKey.current, ifAbsent: true))
    }

    /// Deletes `id` if its copy still has the version `tag` names (a copy already gone is not
    /// an error); with ``versionTags`` off the tag is ignored.
    ///
    /// - Throws: `conflict` when the copy moved since `tag`.
    public func delete(id: ID, ifMatch tag: String) async throws {
        try write(
            Incoming(operation: .delete, changes: [.delete(id)], key: IdempotencyKey.current, ifMatch: tag))
    }

    private func write(_ incoming: Incoming) throws {
        let failure = state.withLock { state -> RepositoryError? in
            let ids = incoming.changes.map(\.id)
            guard state.online else {
                state.requests.append(Self.request(incoming, ids, .offline))
                return .unavailable("HostileRemote is offline (\(incoming.operation))")
            }
            if state.lateCount > 0 {
                state.lateCount -= 1
                state.held.append(incoming)
                state.requests.append(Self.request(incoming, ids, .late))
                return .timedOut(after: .seconds(30), operation: "\(incoming.operation)")
            }
            return Self.process(incoming, in: &state, mayLoseAnswer: true)
        }
        if let failure { throw failure }
    }

    /// Applies `incoming` and logs it; returns the error its caller hears, if any.
    private static func process(_ incoming: Incoming, in state: inout State, mayLoseAnswer: Bool)
        -> RepositoryError?
    {
        var incoming = incoming
        if incoming.deletesAll { incoming.changes = state.order.map { .delete($0) } }
        let ids = incoming.changes.map(\.id)
        if state.honoursKeys, let key = incoming.key, let answer = state.answers[key] {
            state.requests.append(request(incoming, ids, .replayed))
            if let error = lost(in: &state, mayLoseAnswer: mayLoseAnswer) ?? answer { return error }
            // A late write lands with no one waiting for its answer (`mayLoseAnswer` false).
            if mayLoseAnswer { for stored in state.echoes[key] ?? [] { WriteEcho.report(stored) } }
            return nil
        }
        var refusal: RepositoryError?
        if state.versionTags, let tag = incoming.ifMatch, let id = ids.first,
            let version = state.versions[id],
            self.tag(version) != tag
        {
            refusal = .conflict("The entity changed since \(tag) was read (HostileRemote)", id: "\(id)")
        }
        if incoming.ifAbsent, let id = ids.first, state.entities[id] != nil {
            refusal = .conflict("A copy of \(id) exists already (HostileRemote)", id: "\(id)")
        }
        var toApply = incoming.changes
        if refusal == nil, let index = incoming.changes.firstIndex(where: { state.refused[$0.id] != nil }) {
            refusal = state.refused[incoming.changes[index].id]
            toApply = state.itemByItem ? Array(incoming.changes[..<index]) : []
        }
        if refusal != nil && incoming.changes.count == 1 { toApply = [] }
        for change in toApply {
            // A batch applied one entity at a time honours each change's own key, as a server
            // taking one request per entity does.
            guard state.itemByItem, state.honoursKeys, let itemKey = incoming.itemKeys["\(change.id)"] else {
                apply(change, key: incoming.key, in: &state)
                continue
            }
            if state.answers[itemKey] != nil { continue }  // applied before, as this very change
            apply(change, key: itemKey, in: &state)
            state.answers[itemKey] = .some(nil)
        }
        if let key = incoming.key, refusal == nil || !toApply.isEmpty { state.answers[key] = .some(refusal) }
        if let refusal {
            state.requests.append(request(incoming, ids, .refused(applied: toApply.count)))
            return refusal
        }
        // The answer holds what was stored, as a server's answer to a write does; kept with
        // the key, so a replay after a lost answer holds it too.
        let echoes = incoming.changes.compactMap { change -> Entity? in
            guard case .save(let entity) = change else { return nil }
            return state.entities[entity.id]
        }
        if let key = incoming.key { state.echoes[key] = echoes }
        if let error = lost(in: &state, mayLoseAnswer: mayLoseAnswer) {
            state.requests.append(request(incoming, ids, .answerLost))
            return error
        }
        state.requests.append(request(incoming, ids, .applied))
        // A late write lands with no one waiting for its answer (`mayLoseAnswer` false).
        if mayLoseAnswer { for stored in echoes { WriteEcho.report(stored) } }
        return nil
    }

    /// The error that replaces a processed request's answer, when one is to be lost.
    private static func lost(in state: inout State, mayLoseAnswer: Bool) -> RepositoryError? {
        guard mayLoseAnswer else { return nil }
        if !state.lostAnswers.isEmpty { return state.lostAnswers.removeFirst() }
        guard var random = state.randomLoss else { return nil }
        defer { state.randomLoss = random }
        guard Double.random(in: 0..<1, using: &random.generator) < random.probability else { return nil }
        return .unavailable("The connection dropped before the answer arrived (HostileRemote, at random)")
    }

    private static func apply(_ change: Change, key: String?, in state: inout State) {
        state.writes += 1
        switch change {
        case .save(let entity):
            var stored = state.normalize?(entity) ?? entity
            stored = state.stamp?(stored, state.writes) ?? stored
            if state.entities[entity.id] == nil { state.order.append(entity.id) }
            state.entities[entity.id] = stored
            state.versions[entity.id] = state.writes
            state.applications.append(Application(id: entity.id, value: entity, stored: stored, key: key))
        case .delete(let id):
            if state.entities.removeValue(forKey: id) != nil { state.order.removeAll { $0 == id } }
            state.versions[id] = nil
            state.applications.append(Application(id: id, value: nil, stored: nil, key: key))
        }
    }

    private static func request(_ incoming: Incoming, _ ids: [ID], _ outcome: Outcome) -> Request {
        Request(
            operation: incoming.operation, ids: ids, key: incoming.key, ifMatch: incoming.ifMatch,
            ifNoneMatch: incoming.ifAbsent ? "*" : nil, outcome: outcome)
    }

    private static func tag(_ version: Int) -> String { "\"v\(version)\"" }
}
