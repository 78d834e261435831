/// One write a server applies on a client's behalf under the client's idempotency key
/// (``IdempotentWriteRepository/apply(_:idempotencyKey:fingerprint:)``).
public enum KeyedWrite<Entity: Sendable, ID: Hashable & Sendable>: Sendable {
    /// Inserts the entity, or replaces the one stored under its ID.
    case save(Entity)
    /// Inserts the entity only when no entity has its ID; else nothing is written.
    case create(Entity)
    /// Removes the entity stored under the ID, if any.
    case delete(ID)
}

/// What a keyed write did when its key was first applied.
public enum KeyedWriteOutcome: String, Sendable, Hashable, Codable {
    /// A save or create inserted a new entity.
    case created
    /// A save replaced the entity stored under the ID.
    case replaced
    /// A delete removed the entity.
    case deleted
    /// A delete found no entity under the ID; nothing changed.
    case absent
    /// A create found an entity under the ID already; nothing changed.
    case alreadyExists
}

/// The answer to a keyed write: what it did the first time its key was applied, and whether
/// this call was that first time.
public struct KeyedWriteResult<Entity: Sendable>: Sendable {
    /// What the write did when its key was first applied.
    public var outcome: KeyedWriteOutcome
    /// The entity as that write stored it (`nil` for a delete, and for a create refused).
    public var stored: Entity?
    /// `true` when the key had been applied before: this call wrote nothing and answers
    /// from the key's record.
    public var replayed: Bool
    /// The fingerprint the key was first applied with; a replay whose request's fingerprint
    /// differs reused the key for another request, which a server refuses (`422`).
    public var fingerprint: String

    /// Creates a result from its parts.
    public init(outcome: KeyedWriteOutcome, stored: Entity?, replayed: Bool, fingerprint: String) {
        self.outcome = outcome
        self.stored = stored
        self.replayed = replayed
        self.fingerprint = fingerprint
    }
}
