extension Repository where Entity: Codable, ID: Codable {
    /// This repository as the remote of an ``OfflineFirstRepository``: writes go to `local`
    /// and `outbox` and return at once; ``OfflineFirstRepository/sync()`` sends them here
    /// and brings this repository's state back.
    ///
    /// ```swift
    /// let outbox = try await Outbox<Note>(fileURL: dir.appending(path: "notes.outbox"))
    /// let notes = api.offlineFirst(local: file, outbox: outbox, conflicts: .lastWriterWins)
    /// ```
    ///
    /// See ``OfflineFirstRepository`` for the sync, the conflicts and every partial failure.
    public func offlineFirst<Local: Repository>(
        local: Local, outbox: Outbox<Entity>, conflicts: ConflictPolicy<Entity> = .mergeFields(tie: .remote),
        automaticSync: AutomaticSync? = .afterWrites
    ) -> OfflineFirstRepository<Self, Local> where Local.Entity == Entity, Local.ID == ID {
        OfflineFirstRepository(
            remote: self, local: local, outbox: outbox, conflicts: conflicts, automaticSync: automaticSync)
    }

    /// The part of this repository that meets `subset`'s conditions, as the remote of an
    /// ``OfflineFirstRepository``: partial sync.
    ///
    /// ```swift
    /// let mine = try api.offlineFirst(
    ///     local: local, outbox: outbox, subset: Query<Task>().where(\.owner == me))
    /// ```
    ///
    /// See ``OfflineFirstRepository/init(remote:local:outbox:subset:conflicts:automaticSync:)``.
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` when `subset` holds more than conditions on
    ///   declared fields.
    public func offlineFirst<Local: Repository>(
        local: Local, outbox: Outbox<Entity>, subset: Query<Entity>,
        conflicts: ConflictPolicy<Entity> = .mergeFields(tie: .remote),
        automaticSync: AutomaticSync? = .afterWrites
    ) throws -> OfflineFirstRepository<Self, Local> where Local.Entity == Entity, Local.ID == ID {
        try OfflineFirstRepository(
            remote: self, local: local, outbox: outbox, subset: subset, conflicts: conflicts,
            automaticSync: automaticSync)
    }
}
