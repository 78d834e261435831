extension Repository {
    /// This repository with `cache` in front: writes reach this repository and then the
    /// cache before returning; reads are answered by the cache, filled on a miss.
    ///
    /// See ``WriteThroughRepository`` for reads and partial failures.
    public func writeThrough<Cache: Repository>(
        to cache: Cache, onTierFailure: @escaping @Sendable (TierFailure) -> Void = { _ in }
    ) -> WriteThroughRepository<Self, Cache> where Cache.Entity == Entity, Cache.ID == ID {
        WriteThroughRepository(source: self, cache: cache, onTierFailure: onTierFailure)
    }
}
