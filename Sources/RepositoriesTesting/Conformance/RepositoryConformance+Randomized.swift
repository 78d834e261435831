import Repositories

/// One step of a randomized sequence, over the suite's indexes.
enum ModelStep: Sendable, CustomStringConvertible {
    case save(index: Int, revision: Int)
    case saveBatch([(index: Int, revision: Int)])
    case delete(Int)
    case deleteIDs([Int])
    case deleteAll
    case fetch(Int)
    case fetchAll
    case fetchIDs([Int])
    case count
    case query(Int)

    var description: String {
        switch self {
        case .save(let index, let revision): "save(⟨#\(index) r\(revision)⟩)"
        case .saveBatch(let batch):
            "save(contentsOf: [\(batch.map { "⟨#\($0.index) r\($0.revision)⟩" }.joined(separator: ", "))])"
        case .delete(let index): "delete(id: #\(index))"
        case .deleteIDs(let indexes): "delete(ids: [\(indexes.map { "#\($0)" }.joined(separator: ", "))])"
        case .deleteAll: "deleteAll()"
        case .fetch(let index): "fetch(id: #\(index))"
        case .fetchAll: "fetchAll()"
        case .fetchIDs(let indexes): "fetch(ids: [\(indexes.map { "#\($0)" }.joined(separator: ", "))])"
        case .count: "count()"
        case .query(let number): "fetch(query #\(number))"
        }
    }
}

extension RepositoryConformance {
    static var modelIndexes: Range<Int> { 0..<12 }
    static var modelRevisions: Range<Int> { 0..<4 }
    static var maximumShrinkAttempts: Int { 200 }

    func checkRandomized(_ catalog: EntityCatalog<Entity>, seed: UInt64, into report: inout ConformanceReport)
        async
    {
        let queries = Self.referenceQueries(catalog).enumerated().filter {
            options.supports(.insertionOrder) || $0.element.2
        }.map(\.offset)
        for run in 0..<max(1, options.randomizedRuns) {
            var random = SeededRandomNumberGenerator(seed: seed &+ UInt64(run))
            let steps = (0..<max(1, options.operationsPerRun)).map { _ in
                Self.randomStep(using: &random, queries: queries)
            }
            let outcome: (failingStep: Int, message: String)?
            do {
                outcome = try await replay(steps, catalog, notes: &report.notes)
            } catch {
                report.violations.append(
                    ConformanceViolation(
                        law: .matchesReferenceModel, message: "makeRepository() threw \(error)",
                        operations: [], seed: seed))
                return
            }
            guard let outcome else { continue }
            let (shortest, message) = await shrink(
                Array(steps[...outcome.failingStep]), message: outcome.message, catalog, notes: &report.notes)
            report.violations.append(
                ConformanceViolation(
                    law: .matchesReferenceModel,
                    message:
                        "random sequence \(run + 1) of \(options.randomizedRuns) diverged from InMemoryRepository at its last step: \(message) (shrunk from \(outcome.failingStep + 1) to \(shortest.count) steps)",
                    operations: shortest.map(\.description), seed: seed))
            return
        }
        report.passed.append(.matchesReferenceModel)
    }

    static func randomStep(using random: inout SeededRandomNumberGenerator, queries: [Int]) -> ModelStep {
        func index() -> Int { Int.random(in: modelIndexes, using: &random) }
        func revision() -> Int { Int.random(in: modelRevisions, using: &random) }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<30: return .save(index: index(), revision: revision())
        case 30..<40:
            return .saveBatch((0..<Int.random(in: 0...4, using: &random)).map { _ in (index(), revision()) })
        case 40..<52: return .delete(index())
        case 52..<57: return .deleteIDs((0..<Int.random(in: 0...3, using: &random)).map { _ in index() })
        case 57..<59: return .deleteAll
        case 59..<72: return .fetch(index())
        case 72..<80: return .fetchAll
        case 80..<86: return .fetchIDs((0..<Int.random(in: 0...4, using: &random)).map { _ in index() })
        case 86..<92: return .count
        default: return .query(queries.randomElement(using: &random) ?? 0)
        }
    }

    /// Runs `steps` on a new repository and on the reference; returns the first step whose
    /// answers differ. Throws only when a repository cannot be made.
    func replay(
        _ steps: [ModelStep], _ catalog: EntityCatalog<Entity>, notes: inout [String]
    ) async throws -> (failingStep: Int, message: String)? {
        let repository = try await makeRepository()
        let reference = InMemoryRepository<Entity>()
        let queries = Self.referenceQueries(catalog)
        let ordered = options.supports(.insertionOrder)
        var divergence: (failingStep: Int, message: String)?
        for (position, step) in steps.enumerated() {
            let expected = await capture { try await Self.answer(step, on: reference, catalog, queries) }
            let actual = await capture { try await Self.answer(step, on: repository, catalog, queries) }
            let exact = ordered || !step.answersInStoredOrder(queries)
            if let difference = Self.difference(actual, expected, exact: exact, catalog) {
                divergence = (position, difference)
                break
            }
        }
        if let tearDown = options.tearDown {
            do {
                try await tearDown(repository)
            } catch {
                notes.append("tearDown threw \(error)")
            }
        }
        return divergence
    }

    /// Removes chunks of the failing sequence while it still fails, halving the chunk size.
    func shrink(
        _ steps: [ModelStep], message: String, _ catalog: EntityCatalog<Entity>, notes: inout [String]
    ) async -> ([ModelStep], String) {
        var shortest = steps
        var lastMessage = message
        var attempts = 0
        var chunk = max(1, shortest.count / 2)
        while chunk >= 1 && attempts < Self.maximumShrinkAttempts {
            var start = 0
            var removedAny = false
            while start < shortest.count - 1 && attempts < Self.maximumShrinkAttempts {
                var candidate = shortest
                candidate.removeSubrange(start..<min(start + chunk, shortest.count - 1))
                attempts += 1
                let failure: (failingStep: Int, message: String)?
                do {
                    failure = try await replay(candidate, catalog, notes: &notes)
                } catch {
                    notes.append("shrinking stopped early: makeRepository() threw \(error)")
                    return (shortest, lastMessage)
                }
                if let failure {
                    shortest = Array(candidate[...failure.failingStep])
                    lastMessage = failure.message
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if !removedAny { chunk /= 2 }
        }
        return (shortest, lastMessage)
    }

    func capture<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// An answer, made comparable: entities for reads, nothing for writes.
    enum Answer: Equatable {
        case none
        case entities([Entity])
        case entity(Entity?)
        case number(Int)
    }

    static func answer(
        _ step: ModelStep, on repository: some Repository<Entity, Repo.ID>, _ catalog: EntityCatalog<Entity>,
        _ queries: [(String, Query<Entity>, Bool)]
    ) async throws -> Answer {
        switch step {
        case .save(let index, let revision):
            try await repository.save(catalog.entity(index, revision))
        case .saveBatch(let batch):
            try await repository.save(contentsOf: batch.map { catalog.entity($0.index, $0.revision) })
        case .delete(let index):
            try await repository.delete(id: catalog.id(index))
        case .deleteIDs(let indexes):
            try await repository.delete(ids: indexes.map(catalog.id))
        case .deleteAll:
            try await repository.deleteAll()
        case .fetch(let index):
            return .entity(try await repository.fetch(id: catalog.id(index)))
        case .fetchAll:
            return .entities(try await repository.fetchAll())
        case .fetchIDs(let indexes):
            return .entities(try await repository.fetch(ids: indexes.map(catalog.id)))
        case .count:
            return .number(try await repository.count())
        case .query(let number):
            return .entities(try await repository.fetch(queries[number].1))
        }
        return .none
    }

    static func difference(
        _ actual: Result<Answer, any Error>, _ expected: Result<Answer, any Error>, exact: Bool,
        _ catalog: EntityCatalog<Entity>
    ) -> String? {
        switch (actual, expected) {
        case (.success(let got), .success(let want)):
            if got == want { return nil }
            if !exact, case .entities(let gotList) = got, case .entities(let wantList) = want,
                gotList.count == wantList.count, gotList.allSatisfy(wantList.contains),
                wantList.allSatisfy(gotList.contains)
            {
                return nil
            }
            return "the store answered \(describe(got, catalog)), the reference \(describe(want, catalog))"
        case (.failure(let error), .success(let want)):
            return "the store threw \(error), the reference answered \(describe(want, catalog))"
        case (.success(let got), .failure(let error)):
            return "the store answered \(describe(got, catalog)), the reference threw \(error)"
        case (.failure(let got), .failure(let want)):
            let gotCode = (got as? RepositoryError)?.code
            let wantCode = (want as? RepositoryError)?.code
            return gotCode == wantCode ? nil : "the store threw \(got), the reference threw \(want)"
        }
    }

    static func describe(_ answer: Answer, _ catalog: EntityCatalog<Entity>) -> String {
        switch answer {
        case .none: "success"
        case .entities(let list): catalog.describe(list)
        case .entity(let entity): catalog.describe(entity)
        case .number(let number): "\(number)"
        }
    }
}

extension ModelStep {
    /// Whether the answer is a list in stored order, which a store that keeps no insertion
    /// order may permute.
    func answersInStoredOrder<Entity>(_ queries: [(String, Query<Entity>, Bool)]) -> Bool {
        switch self {
        case .fetchAll: true
        case .query(let number): !queries[number].1.isSorted
        default: false
        }
    }
}
