/// One side of a sync conflict: this device's change, or the remote's copy.
public enum ConflictSide: String, Codable, Sendable, Hashable, CaseIterable {
    /// This device's change (the outbox's).
    case local
    /// The remote's current copy.
    case remote
}
