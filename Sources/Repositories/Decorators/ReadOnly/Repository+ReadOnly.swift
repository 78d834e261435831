extension Repository {
    /// A view of this repository that answers reads and refuses writes with
    /// ``RepositoryError/Code/rejected``.
    public func readOnly() -> ReadOnlyRepository<Self> {
        ReadOnlyRepository(self)
    }
}
