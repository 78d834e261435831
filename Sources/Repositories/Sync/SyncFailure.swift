/// How the sync engine reads an error: the one place that says which failures leave a
/// change pending for a later try and which reject it.
enum SyncFailure {
    /// Whether `error` says the remote could not be reached or was busy (`unavailable`,
    /// `timedOut`, `locked`, and `circuitOpen`, a breaker that refused the call), so a sync
    /// is worth trying again later. Automatic sync retries these with backoff.
    static func isTransient(_ error: any Error) -> Bool {
        RetryPolicy.isTransient(error) || (error as? RepositoryError)?.code == .circuitOpen
    }

    /// Whether a change whose send failed with `error` stays pending (its try counted) rather
    /// than rejected: a transient failure, or a sync that was cancelled.
    static func leavesChangePending(_ error: any Error) -> Bool {
        error is CancellationError || isTransient(error)
    }

    /// Whether the remote refused `error`'s call before anything was sent, for a value it
    /// can never send as it is: `encodingFailed`, or an error whose `underlying` is
    /// ``RefusedBeforeSending``. Such a refusal is about one change, not the remote, so it
    /// rejects that change alone, even while its current copy is read.
    static func isRefusedBeforeSending(_ error: any Error) -> Bool {
        guard let error = error as? RepositoryError else { return false }
        return error.code == .encodingFailed || error.underlying is RefusedBeforeSending
    }
}
