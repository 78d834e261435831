extension RepositoryError {
    /// The primary store (`primary`, such as "remote") has the write, but the second store
    /// (`second`, such as "local store") could not take it, and its old copy was removed
    /// (`removed`) or is still there; for decorators of your own that keep two stores.
    ///
    /// The code is ``Code/partiallyApplied`` whatever the second store threw, so a caller can
    /// tell "saved there, not here" from a refusal; the second store's error is
    /// ``RepositoryError/underlying``.
    public static func partiallyApplied(
        _ operation: RepositoryOperation, removed: Bool, underlying: any Error, primary: String,
        second: String
    ) -> RepositoryError {
        let outcome =
            removed
            ? "its old copy was removed, so reads go to the \(primary)"
            : "it still holds the old copy, which could not be removed; this process will not serve it"
        return RepositoryError(
            .partiallyApplied,
            reason: "\(operation) reached the \(primary), but the \(second) could not take it and \(outcome)",
            recovery: removed
                ? "Nothing is lost; the next read fills the \(second) again"
                : "Nothing is lost; write again once the \(second) works (writes are idempotent)",
            underlying: underlying)
    }
}
