extension VersionTaggingRepository {
    /// Changes the entity stored under `id` without losing a write made meanwhile: reads it
    /// with its version's tag, applies `change`, and saves the result on that version; when
    /// another writer got there first (`conflict`), waits a moment (a random pause up to
    /// 16 ms, growing with the attempts), reads again and applies `change` to what it holds
    /// now, up to 10 times (``VersionTaggingRepository/update(id:attempts:_:)`` takes another
    /// number). An atomic read-modify-write, such as a stock
    /// decrement two service instances make at once:
    ///
    /// ```swift
    /// let item = try await items.update(id: sku) { item in
    ///     guard item.stock > 0 else { throw OutOfStock() }
    ///     item.stock -= 1
    /// }
    /// ```
    ///
    /// `change` may run several times, each on a fresh copy, so it should only change the
    /// entity it is given; what it throws ends the update with nothing written. It must not
    /// change the entity's ID.
    ///
    /// - Parameters:
    ///   - id: the entity to change.
    ///   - change: the change, applied to the copy just read.
    /// - Returns: the entity as written.
    /// - Throws: `RepositoryError` `notFound` when no entity is stored under `id` (at the
    ///   first read or a later one); `conflict` when every attempt met a newer version;
    ///   `rejected` when the repository gave no tag for the entity (a web API that sends no
    ///   `ETag`), so no write could be made on its version, or when `change` changed the ID;
    ///   what `change` throws; the repository's errors.
    @discardableResult
    public func update(id: ID, _ change: (inout Entity) throws -> Void) async throws -> Entity {
        try await update(id: id, attempts: 10, change)
    }

    /// The default ``VersionTaggingRepository/update(id:attempts:_:)``: reads with the tag,
    /// changes, writes on the tag, and on `conflict` pauses, reads again and tries again, up to
    /// `attempts` times (see ``update(id:_:)``).
    @discardableResult
    public func update(id: ID, attempts: Int, _ change: (inout Entity) throws -> Void) async throws -> Entity
    {
        var lastConflict: RepositoryError?
        for attempt in 0..<max(1, attempts) {
            if attempt > 0 {
                // Writers that keep meeting each other fall out of step: a random pause that
                // grows with the attempts, up to 16 ms.
                try await Task.sleep(for: .microseconds(Int.random(in: 0...(250 << min(attempt, 6)))))
            }
            guard let current = try await fetchTagged(id: id) else { throw RepositoryError.notFound(id: id) }
            guard let tag = current.tag else {
                throw RepositoryError.rejected(
                    "The repository gave no version tag for the entity \(id), so update(id:_:) cannot make its write conditional",
                    recovery:
                        "Read, change and save the entity yourself, or have the server send an ETag for each entity"
                )
            }
            var changed = current.entity
            try change(&changed)
            guard changed.id == id else {
                throw RepositoryError.rejected(
                    "update(id:_:) was given a change that replaced the ID \(id) with \(changed.id)",
                    recovery: "Change the entity's other properties; save a copy under a new ID with save(_:)"
                )
            }
            do {
                try await save(changed, ifMatch: tag)
                return changed
            } catch let error as RepositoryError where error.code == .conflict {
                lastConflict = error
            }
        }
        var error = RepositoryError.conflict(
            "The entity was written by others at each of \(max(1, attempts)) attempts to update it; nothing was written",
            id: "\(id)", underlying: lastConflict)
        error.recovery = "Try again later, or give more attempts; many writers are changing this one entity"
        throw error
    }
}
