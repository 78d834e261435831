extension RepositoryError {
    /// The primary store has the write, but a second store (a local mirror, a cache) could
    /// not take it, and its old copy was removed (`removed`) or is still there.
    ///
    /// The code is the second store's own when it threw a ``RepositoryError`` (so
    /// `unavailable` or `locked` still read as worth retrying: writes are idempotent), and
    /// ``Code/unavailable`` otherwise.
    static func staleCopy(
        operation: RepositoryOperation, removed: Bool, underlying: any Error, primary: String = "source",
        secondStore: String = "cache"
    ) -> RepositoryError {
        let code = (underlying as? RepositoryError)?.code ?? .unavailable
        let outcome =
            removed
            ? "its old copy was removed, so reads go to the \(primary)"
            : "it still holds the old copy, which could not be removed; this process will not serve it"
        return RepositoryError(
            code,
            reason:
                "\(operation) reached the \(primary), but the \(secondStore) could not be updated and \(outcome)",
            recovery: removed
                ? "Nothing needs doing; the next read fills the \(secondStore) again"
                : "Retry the write once the \(secondStore) works again (writes are idempotent)",
            underlying: underlying)
    }
}
