import Repositories

/// The feed under test as one law sees it: every write and read goes through here, so a
/// broken law shows the operations that led to it, each cursor named by the order the feed
/// handed it out (`c1`, `c2`…).
///
/// Every page read is checked for its shape, whichever law is running: an ID at most once,
/// at most `limit` IDs. A page that breaks one of those laws is kept as a finding for that
/// law, and the running law goes on to its own verdict.
///
/// Used by one task at a time.
final class _FeedProbe<Repo: ChangeFeedRepository> where Repo.Entity: Equatable {
    typealias Entity = Repo.Entity
    typealias ID = Repo.ID
    typealias Page = ChangePage<Entity, ID>

    /// A page that broke a law about its shape, and the operations up to it.
    struct ShapeFinding {
        var law: ChangeFeedLaw
        var message: String
        var operations: [String]
    }

    private(set) var feed: Repo
    let catalog: EntityCatalog<Entity>
    let pageLimit: Int
    private let writableStore: (@Sendable (Repo) -> any Repository<Entity, ID>)?
    /// How many IDs the writes so far named: a read of the feed must end within a number of
    /// pages this bounds.
    private(set) var writtenIDs = 0
    /// Every ID ever saved, which `deleteAll()` deletes.
    private(set) var everSaved = Set<ID>()
    /// The IDs saved and deleted since ``markCursor()``.
    private(set) var savedSinceMark = Set<ID>()
    private(set) var deletedSinceMark = Set<ID>()
    private(set) var shapeFindings: [ShapeFinding] = []
    /// Things worth reporting that are not failures.
    private(set) var notes: [String] = []
    private var steps: [(call: Call, failure: (any Error)?)] = []
    private var cursorNames: [String: String] = [:]

    init(
        _ feed: Repo, catalog: EntityCatalog<Entity>, pageLimit: Int,
        writableStore: (@Sendable (Repo) -> any Repository<Entity, ID>)?
    ) {
        self.feed = feed
        self.catalog = catalog
        self.pageLimit = pageLimit
        self.writableStore = writableStore
    }

    /// Where writes go: the store beneath a read-only feed, else the feed itself.
    var writer: any Repository<Entity, ID> { writableStore?(feed) ?? feed }

    func entity(_ index: Int, _ revision: Int = 0) -> Entity { catalog.entity(index, revision) }

    func entities(_ indexes: some Sequence<Int>, revision: Int = 0) -> [Entity] {
        indexes.map { entity($0, revision) }
    }

    func id(_ index: Int) -> ID { catalog.id(index) }

    // MARK: Traced operations

    /// A call made, kept as values and described only when a failure needs it.
    enum Call {
        case save(Entity)
        case saveBatch([Entity])
        case delete(ID)
        case deleteIDs([ID])
        case deleteAll
        case fetchAll
        case read(cursor: String, limit: Int, page: Page?)
        case note(String)
    }

    var operations: [String] { steps.map(render) }

    private func render(_ step: (call: Call, failure: (any Error)?)) -> String {
        let call: String =
            switch step.call {
            case .save(let entity): "save(\(catalog.describe(entity)))"
            case .saveBatch(let batch): "save(contentsOf: \(catalog.describe(batch)))"
            case .delete(let id): "delete(id: \(catalog.describe(id: id)))"
            case .deleteIDs(let ids): "delete(ids: \(catalog.describe(ids: ids)))"
            case .deleteAll: "deleteAll()"
            case .fetchAll: "fetchAll()"
            case .read(let cursor, let limit, let page):
                "changes(since: \(cursor), limit: \(limit))" + (page.map { " → \(summary($0))" } ?? "")
            case .note(let text): text
            }
        guard let failure = step.failure else { return call }
        return "\(call) threw \(failure)"
    }

    /// A page as a trace shows it: `saved [⟨#1 r0⟩], deleted [#4], next c3, hasMore: false`.
    func summary(_ page: Page) -> String {
        "saved \(catalog.describe(page.saved)), deleted \(catalog.describe(ids: page.deleted)), "
            + "next \(name(of: page.next)), hasMore: \(page.hasMore)"
    }

    /// The cursor's name in traces: `nil`, `c1` for the first the feed handed out, or the
    /// quoted token of one it did not hand out.
    func name(of cursor: SyncCursor?) -> String {
        guard let cursor else { return "nil" }
        if let name = cursorNames[cursor.token] { return name }
        let token = cursor.token.count > 40 ? cursor.token.prefix(40) + "…" : Substring(cursor.token)
        return "\"\(token)\""
    }

    /// Gives `cursor` the next name, `c1`, `c2`…, unless it has one.
    private func assignName(to cursor: SyncCursor) {
        if cursorNames[cursor.token] == nil { cursorNames[cursor.token] = "c\(cursorNames.count + 1)" }
    }

    private func traced<T>(_ call: Call, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            steps.append((call, nil))
            return value
        } catch {
            steps.append((call, error))
            throw error
        }
    }

    /// Records something that happened outside the feed's operations.
    func note(_ text: String) {
        steps.append((.note(text), nil))
    }

    /// Adds a note to the report.
    func report(_ text: String) {
        notes.append(text)
    }

    // MARK: Writes

    func save(_ index: Int, _ revision: Int = 0) async throws { try await save(entity(index, revision)) }

    func save(_ entity: Entity) async throws {
        try await traced(.save(entity)) { try await writer.save(entity) }
        recordSaved([entity.id])
    }

    func save(contentsOf batch: [Entity]) async throws {
        try await traced(.saveBatch(batch)) { try await writer.save(contentsOf: batch) }
        recordSaved(batch.map(\.id))
    }

    func delete(_ index: Int) async throws {
        let id = id(index)
        try await traced(.delete(id)) { try await writer.delete(id: id) }
        recordDeleted([id])
    }

    func delete(_ indexes: [Int]) async throws {
        let ids = indexes.map(id)
        try await traced(.deleteIDs(ids)) { try await writer.delete(ids: ids) }
        recordDeleted(ids)
    }

    func deleteAll() async throws {
        try await traced(.deleteAll) { try await writer.deleteAll() }
        recordDeleted(Array(everSaved))
    }

    /// Counts writes made outside the probe (by the concurrency law's writers).
    func countWrites(_ ids: Int) {
        writtenIDs += ids
    }

    private func recordSaved(_ ids: [ID]) {
        writtenIDs += ids.count
        everSaved.formUnion(ids)
        savedSinceMark.formUnion(ids)
        deletedSinceMark.subtract(ids)
    }

    private func recordDeleted(_ ids: [ID]) {
        writtenIDs += max(ids.count, 1)
        deletedSinceMark.formUnion(ids)
        savedSinceMark.subtract(ids)
    }

    /// Starts counting the IDs saved and deleted afresh: the writes after a cursor.
    func markCursor() {
        savedSinceMark = []
        deletedSinceMark = []
    }

    /// Swaps in the reopened repository.
    func reopen(with reopen: @Sendable (Repo) async throws -> Repo) async throws {
        let current = feed
        feed = try await traced(.note("— close and reopen —")) { try await reopen(current) }
    }

    // MARK: Reads

    func fetchAll() async throws -> [Entity] {
        try await traced(.fetchAll) { try await feed.fetchAll() }
    }

    /// One page after `cursor`, at most `limit` IDs (the options' page limit by default),
    /// checked for its shape; traced unless `traced` is `false` (a reader that pages
    /// thousands of times).
    func page(
        since cursor: SyncCursor?, limit: Int? = nil, in subset: Query<Entity>? = nil, traced: Bool = true
    ) async throws -> Page {
        let limit = limit ?? pageLimit
        let cursorName = name(of: cursor)
        let page: Page
        do {
            if let subset {
                page = try await feed.changes(since: cursor, limit: limit, in: subset)
            } else {
                page = try await feed.changes(since: cursor, limit: limit)
            }
        } catch {
            steps.append((.read(cursor: cursorName, limit: limit, page: nil), error))
            throw error
        }
        assignName(to: page.next)
        if traced { steps.append((.read(cursor: cursorName, limit: limit, page: page), nil)) }
        checkShape(of: page, since: cursorName, limit: limit)
        return page
    }

    /// Pages from `cursor` until a page says `hasMore == false`, applying each page to
    /// `mirror`; returns the last page's `next`.
    ///
    /// - Throws: ``LawBroken`` (and keeps a finding for `lastPageHasNoMore`) when the feed
    ///   still says `hasMore` after more pages than the writes so far can fill.
    @discardableResult
    func readToEnd(
        from cursor: SyncCursor?, limit: Int? = nil, in subset: Query<Entity>? = nil,
        applyingTo mirror: inout _FeedMirror<Entity>
    ) async throws -> SyncCursor {
        try await readToEnd(from: cursor, limit: limit, in: subset) { mirror.apply($0) }
    }

    /// Pages from `cursor` until a page says `hasMore == false`, handing each page to
    /// `receive`; returns the last page's `next`.
    @discardableResult
    func readToEnd(
        from cursor: SyncCursor?, limit: Int? = nil, in subset: Query<Entity>? = nil,
        _ receive: (Page) -> Void
    ) async throws -> SyncCursor {
        let bound = 2 * writtenIDs + 16
        var cursor = cursor
        for _ in 0..<bound {
            let page = try await self.page(since: cursor, limit: limit, in: subset)
            receive(page)
            cursor = page.next
            if !page.hasMore { return page.next }
        }
        let message =
            "after \(bound) pages from \(name(of: cursor)) the feed still said hasMore == true, "
            + "though the writes so far named only \(writtenIDs) IDs"
        find(.lastPageHasNoMore, message)
        throw LawBroken(message)
    }

    /// Pages from `cursor` to the end, applying each page to `mirror`, and returns what the
    /// pages said of each ID (the entity saved, or `nil`: deleted), a later page winning, and
    /// the last page's `next`.
    func statements(
        since cursor: SyncCursor?, applyingTo mirror: inout _FeedMirror<Entity>
    ) async throws -> (statements: [ID: Entity?], end: SyncCursor) {
        var statements: [ID: Entity?] = [:]
        let end = try await readToEnd(from: cursor) { page in
            mirror.apply(page)
            for entity in page.saved { statements[entity.id] = .some(entity) }
            for id in page.deleted { statements[id] = .some(nil) }
        }
        return (statements, end)
    }

    private func checkShape(of page: Page, since cursor: String, limit: Int) {
        let ids = page.saved.map(\.id) + page.deleted
        let call = "changes(since: \(cursor), limit: \(limit))"
        if ids.count > limit {
            find(
                .pageRespectsLimit,
                "\(call) returned \(ids.count) IDs (\(page.saved.count) saved, \(page.deleted.count) deleted), above its limit"
            )
        }
        var seen = Set<ID>()
        let repeated = ids.filter { !seen.insert($0).inserted }
        if !repeated.isEmpty {
            find(
                .pageHoldsEachIDOnce,
                "\(call) returned \(catalog.describe(ids: repeated)) more than once in one page: \(summary(page))"
            )
        }
    }

    /// Keeps the first finding for `law`.
    private func find(_ law: ChangeFeedLaw, _ message: String) {
        guard !shapeFindings.contains(where: { $0.law == law }) else { return }
        shapeFindings.append(ShapeFinding(law: law, message: message, operations: operations))
    }

    // MARK: Expectations

    /// Throws ``LawBroken`` with `message` unless `condition` holds.
    func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw LawBroken(message()) }
    }

    /// Checks that `mirror` holds exactly what the store's `fetchAll()` holds.
    func expect(_ mirror: _FeedMirror<Entity>, matchesStore context: @autoclosure () -> String) async throws {
        let stored = try await fetchAll()
        if let differences = mirror.differences(from: stored, catalog: catalog) {
            throw LawBroken("\(context()), the reader's mirror differs from fetchAll(): \(differences)")
        }
    }

    /// Checks that reading from `cursor` throws `RepositoryError` with `code`; `label` names
    /// the cursor in the failure.
    func expectRefusal(
        _ code: RepositoryError.Code, since cursor: SyncCursor?, limit: Int? = nil, _ label: String
    ) async throws {
        let limit = limit ?? pageLimit
        let call = "changes(since: \(label), limit: \(limit))"
        let outcome: Result<Page, any Error>
        do {
            outcome = .success(try await feed.changes(since: cursor, limit: limit))
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let page):
            assignName(to: page.next)
            steps.append((.read(cursor: label, limit: limit, page: page), nil))
            throw LawBroken("\(call) answered (\(summary(page))) instead of throwing RepositoryError \(code)")
        case .failure(let error):
            steps.append((.read(cursor: label, limit: limit, page: nil), error))
            guard (error as? RepositoryError)?.code == code else {
                throw LawBroken("\(call) threw \(error), expected RepositoryError \(code)")
            }
        }
    }
}
