/// What a sync does when the remote's copy changed since the version a local change was
/// made on (another device, or the server, wrote it meanwhile).
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
}
