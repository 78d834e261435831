extension Repository {
    /// This repository as the remote of a ``RemoteFirstRepository``: reads are mirrored
    /// into `local`, which answers when this repository fails; writes go here first, then
    /// to `local`.
    ///
    /// ```swift
    /// let products = api.fallback(to: file)
    /// let offline = api.fallback(to: file, readPolicy: .localFirst)
    /// let picky = api.fallback(to: file, when: { ($0 as? RepositoryError)?.code != .rejected })
    /// ```
    ///
    /// See ``RemoteFirstRepository`` for the read policies, the mirroring, the streams and
    /// what happens on each partial failure.
    public func fallback<Local: Repository>(
        to local: Local, readPolicy: ReadPolicy = .remoteFirst,
        clock: some Clock<Duration> = ContinuousClock(),
        when shouldFallBack: @escaping @Sendable (any Error) -> Bool = { !($0 is CancellationError) },
        onTierFailure: @escaping @Sendable (TierFailure) -> Void = { _ in }
    ) -> RemoteFirstRepository<Self, Local> where Local.Entity == Entity, Local.ID == ID {
        RemoteFirstRepository(
            remote: self, local: local, readPolicy: readPolicy, clock: clock, shouldFallBack: shouldFallBack,
            onTierFailure: onTierFailure)
    }
}
