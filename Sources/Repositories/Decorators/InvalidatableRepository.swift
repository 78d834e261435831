/// A repository that keeps copies of its source's entities (a cache) and can be told to
/// drop them, so that the next read goes to the source.
///
/// ``CacheAsideRepository`` and ``WriteThroughRepository`` conform (and drop their
/// source's copies too when it is invalidatable); the pass-through decorators
/// (``CoalescingRepository``, ``RetryingRepository``, ``TimeoutRepository``,
/// ``CircuitBreakerRepository``, ``InstrumentedRepository``, ``MappedRepository``,
/// ``ReadOnlyRepository``) and ``RemoteFirstRepository`` (towards its remote) conform when
/// the repository beneath them does. ``ObservedRepository`` always conforms: it forwards to
/// the repository beneath when that one is invalidatable, then tells its observers, so one
/// call both drops the cached copies at every level and reaches every live observer.
public protocol InvalidatableRepository<Entity, ID>: Repository {
    /// Drops the copies of the entities under `ids`; the next read of them goes to the source.
    ///
    /// It does not throw: when the cache cannot remove a copy, the copy is no longer served
    /// by this process (reads of it go to the source until it is rewritten), and the
    /// decorator reports the failure through its `onTierFailure` callback.
    func invalidate(ids: [ID]) async

    /// Drops every copy, and any memory of a whole collection read; the next read of anything
    /// goes to the source.
    func invalidateAll() async
}

extension InvalidatableRepository {
    /// Drops the copy of the entity under `id`; the next read of it goes to the source.
    public func invalidate(id: ID) async {
        await invalidate(ids: [id])
    }
}
