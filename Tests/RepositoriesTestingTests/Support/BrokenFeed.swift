import Repositories
import Synchronization

/// A change feed with one deliberate defect, over `InMemoryRepository`'s correct one, so each
/// test can show `ChangeFeedConformance` catches that defect with the law that names it.
struct BrokenFeed<Entity: Identifiable & Sendable>: ChangeFeedRepository where Entity.ID: Sendable {
    typealias ID = Entity.ID

    enum Defect: Sendable, CaseIterable {
        /// No defect: the in-memory feed as it is.
        case none
        /// Drops the first ID of every page of two or more and moves on past it.
        case skipsAChange
        /// A page of two or more saved entities lists its first one twice (within its limit).
        case repeatsAnID
        /// Answers every change it has in one page, whatever the limit.
        case ignoresLimit
        /// Every page says `hasMore: true`.
        case alwaysHasMore
        /// Fills a page's room with stored entities the reader already has, as a feed
        /// comparing coarse timestamps with `>=` re-sends what was written at the cursor.
        case resendsUntouchedEntities
        /// Remembers the cursors it answered, and answers one asked again from where its
        /// first page ended, as a feed that deletes what it handed out does.
        case consumesPages
        /// Reads a cursor it cannot answer from as `nil`: every entity, no tombstones.
        case neverExpires
        /// Answers a cursor it cannot answer from with an empty page and the end's cursor, as
        /// a feed that takes a cursor it does not know for one ahead of it does.
        case treatsUnknownCursorsAsCurrent
        /// Reads a limit of 0 or below as 1.
        case acceptsNonPositiveLimit
        /// At the end of the feed, pauses, then hands out the cursor of the end as it is
        /// after the pause, passing over the writes that landed meanwhile (a cursor taken
        /// apart from the page it follows).
        case losesConcurrentWrites
        /// Answers a subset's page by dropping what is outside it, as a server that runs its
        /// list's filters on the feed does: an entity that left the subset is never reported.
        case filtersSubsetPages
    }

    let base: InMemoryRepository<Entity>
    let defect: Defect
    private let answered = _AnsweredCursors()

    init(_ defect: Defect, base: InMemoryRepository<Entity> = InMemoryRepository()) {
        self.defect = defect
        self.base = base
    }

    /// The feed over a new store holding what this one holds, as a store rebuilt on reopening.
    func reopened() async throws -> BrokenFeed {
        BrokenFeed(defect, base: InMemoryRepository(try await base.fetchAll()))
    }

    func fetch(id: ID) async throws -> Entity? { try await base.fetch(id: id) }
    func fetchAll() async throws -> [Entity] { try await base.fetchAll() }
    func save(_ entity: Entity) async throws { try await base.save(entity) }
    func save(contentsOf entities: [Entity]) async throws { try await base.save(contentsOf: entities) }
    func delete(id: ID) async throws { try await base.delete(id: id) }
    func deleteAll() async throws { try await base.deleteAll() }

    func changes(since cursor: SyncCursor?, limit: Int) async throws -> ChangePage<Entity, ID> {
        switch defect {
        case .none:
            return try await base.changes(since: cursor, limit: limit)
        case .skipsAChange:
            var page = try await base.changes(since: cursor, limit: limit)
            if page.saved.count + page.deleted.count >= 2 {
                if page.saved.isEmpty { page.deleted.removeFirst() } else { page.saved.removeFirst() }
            }
            return page
        case .repeatsAnID:
            guard limit >= 2 else { return try await base.changes(since: cursor, limit: limit) }
            var page = try await base.changes(since: cursor, limit: limit - 1)
            if page.saved.count >= 2 { page.saved.append(page.saved[0]) }
            return page
        case .ignoresLimit:
            return try await base.changes(since: cursor, limit: .max)
        case .alwaysHasMore:
            var page = try await base.changes(since: cursor, limit: limit)
            page.hasMore = true
            return page
        case .resendsUntouchedEntities:
            var page = try await base.changes(since: cursor, limit: limit)
            guard cursor != nil else { return page }
            let present = Set(page.saved.map(\.id) + page.deleted)
            let room = limit - present.count
            page.saved += try await base.fetchAll().filter { !present.contains($0.id) }.prefix(max(room, 0))
            return page
        case .consumesPages:
            let key = cursor?.token
            if let resume = answered.cursor(after: key) {
                return try await base.changes(since: resume, limit: limit)
            }
            let page = try await base.changes(since: cursor, limit: limit)
            answered.remember(page.next, after: key)
            return page
        case .neverExpires:
            do {
                return try await base.changes(since: cursor, limit: limit)
            } catch let error as RepositoryError where error.code == .cursorExpired {
                return try await base.changes(since: nil, limit: limit)
            }
        case .treatsUnknownCursorsAsCurrent:
            do {
                return try await base.changes(since: cursor, limit: limit)
            } catch let error as RepositoryError where error.code == .cursorExpired {
                return ChangePage(saved: [], deleted: [], next: try await end(after: nil), hasMore: false)
            }
        case .acceptsNonPositiveLimit:
            return try await base.changes(since: cursor, limit: max(limit, 1))
        case .filtersSubsetPages:
            return try await base.changes(since: cursor, limit: limit)
        case .losesConcurrentWrites:
            let page = try await base.changes(since: cursor, limit: limit)
            guard !page.hasMore else { return page }
            try await Task.sleep(for: .milliseconds(1))
            return ChangePage(
                saved: page.saved, deleted: page.deleted, next: try await end(after: page.next),
                hasMore: false)
        }
    }

    /// The page for `subset`: correct, but for `filtersSubsetPages`, which leaves out every
    /// entity outside the subset instead of naming it among `deleted`.
    func changes(since cursor: SyncCursor?, limit: Int, in subset: Query<Entity>) async throws
        -> ChangePage<Entity, ID>
    {
        let page = try await changes(since: cursor, limit: limit)
        guard defect == .filtersSubsetPages else { return page.restricted(to: subset) }
        return ChangePage(
            saved: page.saved.filter(subset.matches), deleted: page.deleted, next: page.next,
            hasMore: page.hasMore)
    }

    /// The cursor at the end of the base's feed, read from `cursor`.
    private func end(after cursor: SyncCursor?) async throws -> SyncCursor {
        var page = try await base.changes(since: cursor, limit: 1_000)
        while page.hasMore { page = try await base.changes(since: page.next, limit: 1_000) }
        return page.next
    }
}

/// The cursors a `consumesPages` feed answered, each with the `next` of its first page.
final class _AnsweredCursors: Sendable {
    /// The `next` of each cursor's first page, by the cursor's token (`nil`: from the start).
    private let answers = Mutex<[String?: SyncCursor]>([:])

    func cursor(after token: String?) -> SyncCursor? { answers.withLock { $0[token] } }

    func remember(_ next: SyncCursor, after token: String?) {
        answers.withLock { $0[token] = next }
    }
}
