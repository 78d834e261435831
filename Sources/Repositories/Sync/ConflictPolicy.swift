/// What a sync does when the remote's copy changed since the version a local change was
/// made on (another device, or the server, wrote it meanwhile).
///
/// Every conflict a policy settles is kept as a ``SyncConflict`` until the app acknowledges
/// it. A change queued before an app update whose remote differs from its upgraded base only
/// in fields the change did not touch is no conflict under any policy: the server's fields
/// are taken and the change's kept (the update's new fields hold the migration's defaults in
/// the base and the server's values on the remote).
public enum ConflictPolicy<Entity: Sendable>: Sendable {
    /// The local change is sent as it is and replaces the remote's copy.
    case lastWriterWins
    /// The local change is dropped and the remote's copy is kept, here too.
    case serverWins
    /// `resolve(base, local, remote)` returns the entity to send and keep: `base` is the
    /// version the local change was made on (`nil` when the device had none), `local` the
    /// device's, `remote` the remote's current one. When one side deleted the entity and
    /// the other changed it, the change is kept: nothing written is lost.
    case merge(@Sendable (_ base: Entity?, _ local: Entity, _ remote: Entity) -> Entity)
    /// A three-way merge over the entity's top-level coded fields: a field one side changed
    /// since the base takes that side's value, a field both changed to the same value takes
    /// it, and a field both changed to different values takes the value of the side `tie`
    /// names. Without a base, or when one side deleted the entity, `tie` decides the whole
    /// entity. A result that is neither side's version replaces the change in the outbox and
    /// the copy here, and is sent.
    ///
    /// A field is a top-level key of the entity's encoded form (its `CodingKeys`): a nested
    /// value is one field, taken whole. A field one side holds and the other does not (an
    /// optional set or cleared) is a change like any other. The base the outbox keeps is
    /// upgraded by the same migrations as the entity, so a field an app update added holds
    /// the migration's default in the base as on the device: the server's value for it is
    /// the remote's change, and this device's edits to the other fields are kept.
    ///
    /// An entity that does not encode as an object of fields (a single value, an array), or
    /// whose merged fields it cannot decode, is decided whole by `tie`.
    case mergeFields(tie: Tie)
}
