/// Where one entity's local changes stand with the remote.
public enum SyncStatus: Sendable, CustomStringConvertible {
    /// No change of this device waits to reach the remote.
    case synced
    /// A change waits to be sent: it was tried `attempts` times so far, and the last try
    /// failed with `lastError` (a transient failure: the remote was unreachable or busy).
    case pending(attempts: Int, lastError: RepositoryError?)
    /// The remote refused the change (a 4xx answer). It is not sent again until
    /// `retry(id:)`; `discard(id:)` drops it and restores the remote's version.
    case rejected(RepositoryError)

    /// A short phrase for a badge or a log line.
    public var description: String {
        switch self {
        case .synced: "synced"
        case .pending(let attempts, let lastError):
            attempts == 0
                ? "waiting to be sent"
                : "not sent yet after \(attempts) \(attempts == 1 ? "try" : "tries")"
                    + (lastError.map { ": \($0)" } ?? "")
        case .rejected(let error): "refused by the remote: \(error)"
        }
    }
}
