/// What another connection changed in a ``PostgresRepository``'s table, as its change feed
/// (``PostgresRepository/changes()``) reports it.
public enum PostgresChange<ID: Hashable & Sendable>: Sendable, Hashable {
    /// The entities under these IDs were saved or deleted by another connection, and
    /// committed. Copies of them held elsewhere may be stale.
    case changed([ID])
    /// Anything may have changed; every copy may be stale. ``PostgresChangeReason`` says why.
    case everything(PostgresChangeReason)
}

/// Why the change feed says that anything may have changed.
public enum PostgresChangeReason: Sendable, Hashable {
    /// The feed's connection started listening: the first element of every feed, and again
    /// after each reconnect, since notifications sent while it was not listening are lost.
    case startedListening
    /// The feed's connection was lost; it reconnects, and says ``startedListening`` once it
    /// listens again. Until then, changes made elsewhere are not reported.
    case connectionLost
    /// A write changed too many entities to list within a notification's 8,000 bytes, or
    /// deleted every entity.
    case manyEntities
    /// A notification on the channel could not be read as this repository's IDs (another
    /// program sent it).
    case unreadableNotification
}
