import Repositories

/// The laws of `ChangeFeedRepository`, checked against any store's feed: one body that
/// `InMemoryRepository`, `SQLiteRepository`, `PostgresRepository` and `HTTPRepository`
/// each run.
///
/// ```swift
/// @Test func feedConforms() async throws {
///     try await ChangeFeedConformance(
///         options: ChangeFeedConformanceOptions(expireCursors: { $0.forgetDeletions() }),
///         makeRepository: { InMemoryRepository<ConformanceEntity>() }
///     ).run()
/// }
/// ```
///
/// Each law reads the feed as a syncing device does: it pages with a small `limit`
/// (``ChangeFeedConformanceOptions/pageLimit``) and applies each page to a mirror, then
/// compares the mirror with `fetchAll()`. Every page read, under any law, is also checked
/// to hold each ID once and at most `limit` IDs. See ``ChangeFeedLaw`` for the laws.
///
/// ``run()`` throws one ``ChangeFeedConformanceFailure`` listing every broken law with the
/// operations that broke it (cursors named `c1`, `c2`… in the order the feed handed them
/// out) and the seed of the concurrency law's writes.
/// ``expectConformance(_:fileID:filePath:line:column:)`` instead reports each broken law as
/// a separate test failure at the caller's line, under Swift Testing or XCTest.
///
/// `makeRepository` must return a new, empty repository on each call; the suite calls it
/// once per law (twice for `unissuedCursorExpires`, which takes a cursor from a second
/// store). The laws that need a hook the options lack (``ChangeFeedConformanceOptions/expireCursors``,
/// ``ChangeFeedConformanceOptions/reopen``) are skipped and listed in
/// ``ChangeFeedConformanceReport/skipped``, never counted as passed.
public struct ChangeFeedConformance<Repo: ChangeFeedRepository>: Sendable where Repo.Entity: Equatable {
    /// The entity type of the repository under test.
    public typealias Entity = Repo.Entity

    let makeRepository: @Sendable () async throws -> Repo
    let makeEntity: @Sendable (Int, Int) -> Entity
    /// The hooks and effort of the run.
    public var options: ChangeFeedConformanceOptions<Repo>

    /// Creates a suite for a feed of the author's own entity.
    ///
    /// - Parameters:
    ///   - options: the hooks to expire cursors and to reopen the store, the page limit, the
    ///     concurrency law's effort.
    ///   - makeRepository: returns a new, empty repository each call.
    ///   - makeEntity: returns the entity for `(index, revision)`: its ID must be fixed by
    ///     `index` alone (distinct indexes, distinct IDs), and its other content must differ
    ///     between revisions.
    public init(
        options: ChangeFeedConformanceOptions<Repo> = ChangeFeedConformanceOptions(),
        makeRepository: @escaping @Sendable () async throws -> Repo,
        makeEntity: @escaping @Sendable (_ index: Int, _ revision: Int) -> Entity
    ) {
        self.options = options
        self.makeRepository = makeRepository
        self.makeEntity = makeEntity
    }

    /// Checks every law; returns the report when all held.
    ///
    /// - Throws: ``ChangeFeedConformanceFailure`` listing every broken law;
    ///   ``ConformanceSetupError`` when the inputs cannot work (a `makeEntity` that gives two
    ///   indexes one ID, a page limit below 1).
    @discardableResult
    public func run() async throws -> ChangeFeedConformanceReport {
        try await check(ChangeFeedLaw.allCases)
    }

    /// Checks `laws`; returns the report when all held.
    ///
    /// A page that breaks `pageHoldsEachIDOnce` or `pageRespectsLimit` while another law runs
    /// is reported too, even when that law was not asked for.
    ///
    /// - Throws: ``ChangeFeedConformanceFailure`` listing every broken law;
    ///   ``ConformanceSetupError`` when the inputs cannot work.
    @discardableResult
    public func check(_ laws: [ChangeFeedLaw]) async throws -> ChangeFeedConformanceReport {
        let report = try await evaluate(laws)
        if !report.violations.isEmpty { throw ChangeFeedConformanceFailure(report: report) }
        return report
    }
}

extension ChangeFeedConformance where Repo.Entity == ConformanceEntity {
    /// Creates a suite for a feed of the suite's own fixture, ``ConformanceEntity``.
    public init(
        options: ChangeFeedConformanceOptions<Repo> = ChangeFeedConformanceOptions(),
        makeRepository: @escaping @Sendable () async throws -> Repo
    ) {
        self.init(options: options, makeRepository: makeRepository) {
            ConformanceEntity.make(index: $0, revision: $1)
        }
    }
}

// MARK: - Running laws

extension ChangeFeedConformance {
    /// The IDs the concurrency law's writers share: 4 for each writer.
    static func sharedKeys(writers: Int) -> Int { 4 * writers }

    func evaluate(_ laws: [ChangeFeedLaw]) async throws -> ChangeFeedConformanceReport {
        let seed = try options.resolvedSeed()
        guard options.pageLimit > 0 else {
            throw ConformanceSetupError(
                message:
                    "ChangeFeedConformanceOptions.pageLimit is \(options.pageLimit); it must be 1 or more")
        }
        var report = ChangeFeedConformanceReport(seed: seed)
        let catalog: EntityCatalog<Entity>
        do {
            let writers = max(1, options.concurrentWriters)
            let shared = Self.sharedKeys(writers: writers)
            let indexLimit = Self.ownKeys(
                of: writers - 1, shared: shared, writes: max(1, options.writesPerWriter)
            )
            .upperBound
            catalog = try EntityCatalog(
                indexLimit: max(64, indexLimit), makeEntity: makeEntity, makeUnencodable: nil)
        } catch let broken as LawBroken {
            throw ConformanceSetupError(message: broken.message)
        }
        var checked: [ChangeFeedLaw] = []
        for law in ChangeFeedLaw.allCases where laws.contains(law) {
            try Task.checkCancellation()
            if let reason = skipReason(law) {
                report.skipped.append(ChangeFeedConformanceReport.Skip(law: law, reason: reason))
                continue
            }
            checked.append(law)
            await verify(law, catalog, seed: seed, into: &report)
        }
        let broken = Set(report.violations.map(\.law))
        report.passed = checked.filter { !broken.contains($0) }
        return report
    }

    /// Why `law` cannot be checked with these options, or `nil` when it can.
    func skipReason(_ law: ChangeFeedLaw) -> String? {
        switch law {
        case .forgottenDeletionsExpireCursors where options.expireCursors == nil:
            "no ChangeFeedConformanceOptions.expireCursors was given; a store that drops tombstones should pass one"
        case .cursorSurvivesReopen where options.reopen == nil:
            "no ChangeFeedConformanceOptions.reopen was given; stores that persist should pass one"
        default: nil
        }
    }

    /// Runs `law`'s body on a new repository and records whether it held, and any page that
    /// broke a law about its shape on the way. A violation names `seed` when the law makes
    /// random choices.
    func verify(
        _ law: ChangeFeedLaw, _ catalog: EntityCatalog<Entity>, seed runSeed: UInt64,
        into report: inout ChangeFeedConformanceReport
    ) async {
        let seed = law == .concurrentWritesAreNeverSkipped ? runSeed : nil
        let repository: Repo
        do {
            repository = try await makeRepository()
        } catch {
            report.violations.append(
                ChangeFeedConformanceViolation(
                    law: law, message: "makeRepository() threw \(error)", operations: [], seed: seed))
            return
        }
        let probe = _FeedProbe(
            repository, catalog: catalog, pageLimit: options.pageLimit, writableStore: options.writableStore)
        do {
            let initial = try await probe.fetchAll()
            try probe.expect(
                initial.isEmpty,
                "makeRepository() returned a repository holding \(initial.count) entities; each call must return an empty one"
            )
            try await body(of: law, seed: runSeed)(probe)
        } catch let broken as LawBroken {
            report.violations.append(
                ChangeFeedConformanceViolation(
                    law: law, message: broken.message, operations: probe.operations, seed: seed))
        } catch {
            report.violations.append(
                ChangeFeedConformanceViolation(
                    law: law, message: "an operation threw \(error)", operations: probe.operations, seed: seed
                ))
        }
        for finding in probe.shapeFindings where !report.violations.contains(where: { $0.law == finding.law })
        {
            report.violations.append(
                ChangeFeedConformanceViolation(
                    law: finding.law, message: "\(finding.message) (found while checking \(law))",
                    operations: finding.operations, seed: seed))
        }
        report.notes += probe.notes
        await release(probe.feed, into: &report)
    }

    func release(_ repository: Repo, into report: inout ChangeFeedConformanceReport) async {
        guard let tearDown = options.tearDown else { return }
        do {
            try await tearDown(repository)
        } catch {
            report.notes.append("tearDown threw \(error)")
        }
    }

    /// The body that checks `law`; `seed` drives the random choices of the laws that make any.
    func body(of law: ChangeFeedLaw, seed: UInt64) -> (_FeedProbe<Repo>) async throws -> Void {
        switch law {
        case .readFromNilDeliversEveryEntity: readFromNilDeliversEveryEntity
        case .pageHoldsEachIDOnce: pageHoldsEachIDOnce
        case .pageRespectsLimit: pageRespectsLimit
        case .lastPageHasNoMore: lastPageHasNoMore
        case .changesAfterCursorComeBack: changesAfterCursorComeBack
        case .untouchedEntitiesStayOut: untouchedEntitiesStayOut
        case .rereadPageIsHarmless: rereadPageIsHarmless
        case .cursorSurvivesCoding: cursorSurvivesCoding
        case .subsetPagesKeepTheSubset: subsetPagesKeepTheSubset
        case .unissuedCursorExpires: unissuedCursorExpires
        case .nonPositiveLimitIsRejected: nonPositiveLimitIsRejected
        case .forgottenDeletionsExpireCursors: forgottenDeletionsExpireCursors
        case .concurrentWritesAreNeverSkipped: { try await concurrentWritesAreNeverSkipped($0, seed: seed) }
        case .cursorSurvivesReopen: cursorSurvivesReopen
        }
    }
}
