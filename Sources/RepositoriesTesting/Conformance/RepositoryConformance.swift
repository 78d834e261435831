import Repositories

/// The laws of `Repository`, checked against any store or decorator.
///
/// A store author runs the whole suite in one call:
///
/// ```swift
/// @Test func conformsToRepository() async throws {
///     try await RepositoryConformance(makeRepository: { InMemoryRepository<ConformanceEntity>() }).run()
/// }
/// ```
///
/// or one area per test, so failures show per area:
///
/// ```swift
/// let suite = RepositoryConformance(makeRepository: { try await makeStore() })
/// @Test func basics() async throws { try await suite.basics() }
/// @Test func concurrency() async throws { try await suite.concurrency() }
/// ```
///
/// ``run()`` and the area methods throw one ``ConformanceFailure`` listing every broken
/// law with the operations that broke it and the seed that reproduces it.
/// ``expectConformance(_:fileID:filePath:line:column:)`` instead reports each broken law as
/// a separate test failure at the caller's line, under Swift Testing or XCTest.
///
/// `makeRepository` must return a new, empty repository on each call; the suite calls it
/// once per law. Laws that need a capability the store declared unsupported (in
/// ``ConformanceOptions/unsupported``), the durability area when no
/// ``ConformanceOptions/reopen`` is given, and ``ConformanceLaw/equalIDsAreOneEntity`` when
/// the suite cannot spell an ID two ways (see
/// ``ConformanceOptions/makeEntityWithRespelledID``), and the migrations area when no
/// ``ConformanceOptions/makeMigrationStoreLocation`` is given, are skipped and listed in
/// ``ConformanceReport/skipped``, never counted as passed; an area method whose every law
/// was skipped throws ``ConformanceSetupError`` rather than pass having checked nothing.
public struct RepositoryConformance<Repo: Repository>: Sendable where Repo.Entity: Equatable {
    /// The entity type of the repository under test.
    public typealias Entity = Repo.Entity

    let makeRepository: @Sendable () async throws -> Repo
    let makeEntity: @Sendable (Int, Int) -> Entity
    /// The capabilities, hooks and effort of the run.
    public var options: ConformanceOptions<Repo>

    /// Creates a suite for a repository of the author's own entity.
    ///
    /// - Parameters:
    ///   - options: capabilities the store lacks, a reopen closure for durable stores, effort.
    ///   - makeRepository: returns a new, empty repository each call.
    ///   - makeEntity: returns the entity for `(index, revision)`: its ID must be fixed by
    ///     `index` alone (distinct indexes, distinct IDs), and its other content must differ
    ///     between revisions.
    public init(
        options: ConformanceOptions<Repo> = ConformanceOptions(),
        makeRepository: @escaping @Sendable () async throws -> Repo,
        makeEntity: @escaping @Sendable (_ index: Int, _ revision: Int) -> Entity
    ) {
        self.options = options
        self.makeRepository = makeRepository
        self.makeEntity = makeEntity
    }

    /// Checks every law; returns the report when all held.
    ///
    /// - Throws: ``ConformanceFailure`` listing every broken law.
    @discardableResult
    public func run() async throws -> ConformanceReport {
        try await check(ConformanceArea.allCases)
    }

    /// Checks the laws of `areas`; returns the report when all held.
    ///
    /// - Throws: ``ConformanceFailure`` listing every broken law.
    @discardableResult
    public func check(_ areas: [ConformanceArea]) async throws -> ConformanceReport {
        let report = try await evaluate(areas)
        if !report.violations.isEmpty { throw ConformanceFailure(report: report) }
        return report
    }

    /// Checks one area, as the area methods do: like ``check(_:)``, and it also throws
    /// when every law of the area was skipped, because a test named for the area would
    /// otherwise pass having checked nothing.
    func checkArea(_ area: ConformanceArea) async throws -> ConformanceReport {
        let report = try await check([area])
        if report.passed.isEmpty, !report.skipped.isEmpty {
            throw ConformanceSetupError(
                message: "the \(area) area checked nothing: "
                    + report.skipped.map { "\($0.law) skipped: \($0.reason)" }.joined(separator: "; "))
        }
        return report
    }

    /// Save, fetch, delete, count and their batch forms, one at a time.
    @discardableResult
    public func basics() async throws -> ConformanceReport { try await checkArea(.basics) }

    /// Batches are saved whole, and a batch that fails (an entity that cannot be encoded) or
    /// is cancelled leaves nothing behind.
    @discardableResult
    public func batches() async throws -> ConformanceReport { try await checkArea(.batches) }

    /// `fetchAll()` keeps the order of first insertion.
    @discardableResult
    public func ordering() async throws -> ConformanceReport { try await checkArea(.ordering) }

    /// Filter, sort, offset and limit answer as the reference does; negative bounds are rejected.
    @discardableResult
    public func queries() async throws -> ConformanceReport { try await checkArea(.queries) }

    /// Many tasks of mixed operations at once (``ConformanceOptions/concurrentTasks`` ×
    /// ``ConformanceOptions/operationsPerTask``), then the final state checked against the
    /// operations that succeeded; readers never see a batch torn.
    @discardableResult
    public func concurrency() async throws -> ConformanceReport { try await checkArea(.concurrency) }

    /// Random sequences of operations compared, answer by answer, with `InMemoryRepository`;
    /// a failing sequence is shrunk to the shortest one found.
    @discardableResult
    public func randomized() async throws -> ConformanceReport { try await checkArea(.randomized) }

    /// Every acknowledged write survives closing and reopening, in order.
    @discardableResult
    public func durability() async throws -> ConformanceReport { try await checkArea(.durability) }

    /// The store reopened with other versions of the suite's versioned fixture
    /// (``ConformanceEntityV1`` to ``ConformanceEntityV3``): older data upgraded as the chain
    /// says, once, writes after it durable, newer data refused and kept, and data written
    /// without migrations read unchanged. Needs ``ConformanceOptions/makeMigrationStoreLocation``.
    @discardableResult
    public func migrations() async throws -> ConformanceReport { try await checkArea(.migrations) }
}

extension RepositoryConformance where Repo.Entity == ConformanceEntity {
    /// Creates a suite for a repository of the suite's own fixture, ``ConformanceEntity``.
    ///
    /// The fixture's ``ConformanceEntity/unencodable(index:)`` is used to make batches fail,
    /// unless the options name another.
    public init(
        options: ConformanceOptions<Repo> = ConformanceOptions(),
        makeRepository: @escaping @Sendable () async throws -> Repo
    ) {
        var options = options
        if options.makeUnencodableEntity == nil {
            options.makeUnencodableEntity = { ConformanceEntity.unencodable(index: $0) }
        }
        self.init(options: options, makeRepository: makeRepository) {
            ConformanceEntity.make(index: $0, revision: $1)
        }
    }
}

// MARK: - Running laws

extension RepositoryConformance {
    /// The indexes the concurrency area's tasks own: 16 each, after the first 64.
    static var keysPerTask: Int { 16 }

    func evaluate(_ areas: [ConformanceArea]) async throws -> ConformanceReport {
        let seed = try options.resolvedSeed()
        var report = ConformanceReport(seed: seed)
        let catalog: EntityCatalog<Entity>
        do {
            catalog = try EntityCatalog(
                indexLimit: max(1_024, 64 + options.concurrentTasks * Self.keysPerTask + 64),
                makeEntity: makeEntity, makeUnencodable: options.makeUnencodableEntity)
            if areas.contains(.basics) { _ = try respelledIDs() }
        } catch let broken as LawBroken {
            throw ConformanceSetupError(message: broken.message)
        }
        var seen = Set<ConformanceArea>()
        for area in areas where seen.insert(area).inserted {
            try Task.checkCancellation()
            switch area {
            case .basics: await checkBasics(catalog, into: &report)
            case .batches: await checkBatches(catalog, into: &report)
            case .ordering: await checkOrdering(catalog, into: &report)
            case .queries:
                await checkQueries(catalog, into: &report)
                await checkFieldQueries(catalog, into: &report)
            case .concurrency: await checkConcurrency(catalog, seed: seed, into: &report)
            case .randomized: await checkRandomized(catalog, seed: seed, into: &report)
            case .durability: await checkDurability(catalog, into: &report)
            case .migrations: await checkMigrations(into: &report)
            }
        }
        return report
    }

    /// Runs `body` on a new repository and records whether `law` held.
    func verify(
        _ law: ConformanceLaw, _ catalog: EntityCatalog<Entity>, into report: inout ConformanceReport,
        seed: UInt64? = nil, _ body: (Probe<Repo>) async throws -> Void
    ) async {
        let repository: Repo
        do {
            repository = try await makeRepository()
        } catch {
            report.violations.append(
                ConformanceViolation(
                    law: law, message: "makeRepository() threw \(error)", operations: [], seed: seed))
            return
        }
        let probe = Probe(repository, catalog: catalog, ordered: options.supports(.insertionOrder))
        do {
            let initial = try await repository.fetchAll()
            try probe.expect(
                initial.isEmpty,
                "makeRepository() returned a repository holding \(initial.count) entities; each call must return an empty one"
            )
            try await body(probe)
            report.passed.append(law)
        } catch let broken as LawBroken {
            report.violations.append(
                ConformanceViolation(
                    law: law, message: broken.message, operations: probe.operations, seed: seed))
        } catch {
            report.violations.append(
                ConformanceViolation(
                    law: law, message: "an operation threw \(error)", operations: probe.operations, seed: seed
                ))
        }
        await release(probe.repository, into: &report)
    }

    func release(_ repository: Repo, into report: inout ConformanceReport) async {
        guard let tearDown = options.tearDown else { return }
        do {
            try await tearDown(repository)
        } catch {
            report.notes.append("tearDown threw \(error)")
        }
    }

    func skip(_ law: ConformanceLaw, _ reason: String, into report: inout ConformanceReport) {
        report.skipped.append(ConformanceReport.Skip(law: law, reason: reason))
    }

    /// Skips `law` when a capability it needs is unsupported; returns whether it was skipped.
    func skipUnless(
        _ capability: ConformanceCapability, _ law: ConformanceLaw, into report: inout ConformanceReport
    ) -> Bool {
        guard !options.supports(capability) else { return false }
        skip(law, "the store declares \(capability) unsupported", into: &report)
        return true
    }
}
