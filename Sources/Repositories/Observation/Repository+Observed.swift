extension Repository {
    /// This repository announcing every change made through it, with live value streams.
    ///
    /// See ``ObservedRepository`` for when changes are announced and how the streams end.
    public func observed() -> ObservedRepository<Self> {
        ObservedRepository(self)
    }

    /// This repository announcing every change made through it, and taking every change
    /// `changes` reports as made elsewhere (another process's commits, from
    /// `SQLiteRepository.committedChanges()`), with live value streams.
    ///
    /// See ``ObservedRepository/init(_:following:)``.
    public func observed(
        following changes: AsyncThrowingStream<RepositoryChange<Entity>, any Error>
    ) -> ObservedRepository<Self> {
        ObservedRepository(self, following: changes)
    }
}
