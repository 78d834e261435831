extension OfflineFirstRepository {
    /// How many IDs the pull asks the remote's change feed for in one page.
    static var pullPageSize: Int { 500 }

    /// Brings the remote's changes into the local store, keeping every entity that has a
    /// pending change: through the remote's change feed, from the cursor kept with the
    /// outbox, when the remote has one (``ChangeFeedRepository``); else, or without a cursor
    /// for the subset synced, or when the feed refuses it as expired, or first after a
    /// session that ended without closing the outbox (``SessionMarker``), by reading the whole
    /// collection, or the whole subset.
    func pull(_ tally: SyncTally<ID>) async throws {
        guard let feed = remote as? any ChangeFeedRepository<Entity, ID>, feed.servesChangeFeed else {
            tally.requested()
            guard let subset = syncedSubset else {
                try await replaceLocal(with: try await remote.fetchAll(), tally)
                return tally.pulled(fullPullReason: "the remote has no change feed")
            }
            // A remote that answered more than the subset is not believed for the rest.
            try await replaceLocal(
                with: try await remote.fetch(subset.query).filter(subset.query.matches), tally)
            return tally.pulled(fullPullReason: "the remote has no change feed: the whole subset was read")
        }
        guard let cursor = outbox.pullCursor.cursor(for: subsetKey) else {
            let reason =
                outbox.pullCursor.current == nil
                ? "no cursor yet: the first pull through the remote's change feed"
                : "the cursor kept was read for another subset of the remote: the subset synced changed"
            try await pullFromTheStart(of: feed, tally)
            return tally.pulled(fullPullReason: reason)
        }
        guard outbox.session?.lastSessionEndedUnclosed != true else {
            // A write the process was killed in may have left an entity here with no change
            // queued; only a full pull finds that the remote does not hold it.
            try await pullFromTheStart(of: feed, tally)
            return tally.pulled(
                fullPullReason: "the last session ended without closing the outbox: a write cut short may "
                    + "have left here what the remote never got")
        }
        do {
            try await pullChanges(of: feed, after: cursor, tally)
            tally.pulled(fullPullReason: nil)
        } catch let error as RepositoryError where error.code == .cursorExpired {
            try await pullFromTheStart(of: feed, tally)
            tally.pulled(
                fullPullReason: "the remote's change feed refused the cursor as expired (\(error.reason))")
        }
    }

    /// The ``SyncSubset/key`` of the subset synced; empty for the whole collection.
    private var subsetKey: String { syncedSubset?.key ?? "" }

    /// The page of `feed` after `cursor`: the subset's when one is synced, checked here too,
    /// so an entity a remote sent outside the subset counts as one that left it.
    private func feedPage(of feed: any ChangeFeedRepository<Entity, ID>, after cursor: SyncCursor?)
        async throws
        -> ChangePage<Entity, ID>
    {
        guard let subset = syncedSubset else {
            return try await feed.changes(since: cursor, limit: Self.pullPageSize)
        }
        return try await feed.changes(since: cursor, limit: Self.pullPageSize, in: subset.query)
            .restricted(to: subset.query)
    }

    /// Applies the feed's pages after `cursor`, keeping the cursor of each once it is applied:
    /// a crash in between applies that page again, which changes nothing.
    private func pullChanges(
        of feed: any ChangeFeedRepository<Entity, ID>, after cursor: SyncCursor, _ tally: SyncTally<ID>
    ) async throws {
        var cursor = cursor
        while true {
            tally.requested()
            let page = try await feedPage(of: feed, after: cursor)
            tally.received(try await apply(page))
            try outbox.pullCursor.keep(page.next, for: subsetKey)
            cursor = page.next
            guard page.hasMore else { return }
        }
    }

    /// Reads the feed from its start (every entity, or every entity of the subset) to its end,
    /// then makes the local store the remote's collection, as a pull without a feed does, and
    /// keeps the last cursor.
    /// Nothing is kept until the end: an entity the local store holds and the remote does
    /// not is known only once every page is read.
    private func pullFromTheStart(of feed: any ChangeFeedRepository<Entity, ID>, _ tally: SyncTally<ID>)
        async throws
    {
        if let kept = outbox.pullCursor.current, kept.subset != subsetKey {
            // The local store is about to hold another subset than the cursor's: were the new
            // cursor not kept after it, opening with the old subset would go on from the old
            // cursor over the new subset's entities.
            try outbox.pullCursor.forget()
        }
        var cursor: SyncCursor?
        var order: [ID] = []
        var entities: [ID: Entity] = [:]
        while true {
            tally.requested()
            let page = try await feedPage(of: feed, after: cursor)
            for entity in page.saved {
                if entities.updateValue(entity, forKey: entity.id) == nil { order.append(entity.id) }
            }
            for id in page.deleted { entities.removeValue(forKey: id) }
            cursor = page.next
            guard page.hasMore else { break }
        }
        try await replaceLocal(with: order.compactMap { entities[$0] }, tally)
        if let cursor { try outbox.pullCursor.keep(cursor, for: subsetKey) }
        // What a session that ended without closing may have left here is gone now.
        outbox.session?.settled()
    }

    /// Makes the local store hold `values`, the remote's whole collection (or whole subset),
    /// except where a change is pending.
    private func replaceLocal(with values: [Entity], _ tally: SyncTally<ID>) async throws {
        let received = try await engine.write(.all) { [outbox, local] in
            let pending = Set(try await outbox.records().map(\.id))
            let current = try await local.fetchAll()
            let copies = Dictionary(current.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
            let changed = values.filter { !pending.contains($0.id) && !Plan.same(copies[$0.id], $0) }
            let remoteIDs = Set(values.map(\.id))
            let gone = current.map(\.id).filter { !remoteIDs.contains($0) && !pending.contains($0) }
            if let joint = outbox.joint {
                await _OfflineFirstTestHooks.reachedHolding(.pulling)
                let applied = try await joint.applyRemote(saving: changed, deleting: gone)
                return applied.saved.count + applied.deleted.count
            }
            _OfflineFirstTestHooks.reached(.pulling)
            if !changed.isEmpty { try await local.save(contentsOf: changed) }
            _OfflineFirstTestHooks.reached(.pulling)
            if !gone.isEmpty { try await local.delete(ids: gone) }
            return changed.count + gone.count
        }
        tally.received(received)
    }

    /// Applies one page of the feed to the local store, except where a change is pending;
    /// returns how many entities it saved or deleted here.
    private func apply(_ page: ChangePage<Entity, ID>) async throws -> Int {
        let ids = page.saved.map(\.id) + page.deleted
        guard !ids.isEmpty else { return 0 }
        // The snapshot streams take the page's changes as they are, without reading again.
        let written = try await engine.writeReported(.all) { [outbox, local] in
            let pending = try await outbox.records(ids)
            let copies = Dictionary(
                try await local.fetch(ids: ids).map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
            var changed = page.saved.filter { pending[$0.id] == nil && !Plan.same(copies[$0.id], $0) }
            var gone = page.deleted.filter { pending[$0] == nil && copies[$0] != nil }
            if let joint = outbox.joint {
                // Another instance may record a change meanwhile: the transaction leaves it out.
                await _OfflineFirstTestHooks.reachedHolding(.pulling)
                (changed, gone) = try await joint.applyRemote(saving: changed, deleting: gone)
            } else {
                _OfflineFirstTestHooks.reached(.pulling)
                if !changed.isEmpty { try await local.save(contentsOf: changed) }
                _OfflineFirstTestHooks.reached(.pulling)
                if !gone.isEmpty { try await local.delete(ids: gone) }
            }
            return changed.map { LocalWrite(id: $0.id, entity: $0, wasStored: copies[$0.id] != nil) }
                + gone.map { LocalWrite(id: $0, entity: nil, wasStored: true) }
        }
        return written.count
    }
}
