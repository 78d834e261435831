import Foundation

extension Repository {
    /// This repository behind a cache of ``Cached`` entries, served while younger than
    /// `timeToLive`.
    ///
    /// ```swift
    /// let facts = api.cached(in: InMemoryRepository<Cached<Fact>>(), timeToLive: .seconds(300))
    /// ```
    ///
    /// See ``CacheAsideRepository`` for reads, writes, races and partial failures, and its
    /// initializer for `clock` and `startDate`.
    public func cached<Cache: Repository>(
        in cache: Cache, timeToLive: Duration,
        clock: some Clock<Duration> = ContinuousClock(), startDate: Date = Date(),
        onTierFailure: @escaping @Sendable (TierFailure) -> Void = { _ in }
    ) -> CacheAsideRepository<Self, Cache> where Cache.Entity == Cached<Entity>, Cache.ID == ID {
        CacheAsideRepository(
            source: self, cache: cache, timeToLive: timeToLive, clock: clock, startDate: startDate,
            onTierFailure: onTierFailure)
    }
}
