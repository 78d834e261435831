/// Where a ``RemoteFirstRepository`` reads from.
public enum ReadPolicy: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The remote; on a failure the fallback predicate accepts, the local store. The default.
    case remoteFirst
    /// The local store when it has an answer; otherwise the remote (then mirrored). Use it
    /// once the local store holds the whole collection: a non-empty local answer is taken
    /// as complete.
    case localFirst
    /// The local store only: offline mode. The remote is never read.
    case localOnly
    /// The remote only (still mirrored into the local store); a remote failure is thrown.
    case remoteOnly

    /// The policy's name.
    public var description: String { rawValue }
}
