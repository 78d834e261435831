import Repositories
import Synchronization

extension RepositoryConformance {
    /// What one owner task saw: its keys' final model, the first read that contradicted it,
    /// and the operations that threw.
    struct OwnerOutcome: Sendable {
        /// For each owned index, the revisions it may hold (`nil`: absent). One element when
        /// certain; more after a write that threw, since it may or may not have landed.
        var possible: [Int: Set<Int?>]
        var contradiction: (message: String, operations: [String])?
        var errors: [String] = []
    }

    func checkConcurrency(
        _ catalog: EntityCatalog<Entity>, seed: UInt64, into report: inout ConformanceReport
    ) async {
        let laws: [ConformanceLaw] = [
            .concurrentWritesAllLand, .concurrentReadsSeeOwnWrites, .batchesAreNeverSeenTorn,
        ]
        let checksTorn = !skipUnless(.atomicBatches, .batchesAreNeverSeenTorn, into: &report)
        let repository: Repo
        do {
            repository = try await makeRepository()
        } catch {
            for law in laws where law != .batchesAreNeverSeenTorn || checksTorn {
                report.violations.append(
                    ConformanceViolation(
                        law: law, message: "makeRepository() threw \(error)", operations: [], seed: seed))
            }
            return
        }
        let taskCount = max(1, options.concurrentTasks)
        let operations = max(1, options.operationsPerTask)
        let tornRange = (64 + taskCount * Self.keysPerTask)..<(64 + taskCount * Self.keysPerTask + 8)

        async let tornOutcome: TornOutcome? =
            checksTorn
            ? Self.hammerBatches(repository, catalog, range: tornRange, rounds: max(50, operations / 10))
            : nil
        let outcomes = await withTaskGroup(of: OwnerOutcome.self) { group in
            for task in 0..<taskCount {
                let first = 64 + task * Self.keysPerTask
                let keys = Array(first..<(first + Self.keysPerTask))
                let taskSeed = seed &+ UInt64(task) &* 0x9E37_79B9
                group.addTask {
                    var random = SeededRandomNumberGenerator(seed: taskSeed)
                    return await Self.runOwner(
                        repository, catalog, keys: keys, operations: operations, random: &random)
                }
            }
            var all: [OwnerOutcome] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        let torn = await tornOutcome

        let errors = outcomes.flatMap(\.errors) + (torn?.errors ?? [])
        // A store may fail an operation now and then under load (a write that threw counts
        // as "maybe landed"), but one that fails many has not shown its laws hold.
        let tolerated = taskCount * operations / 20
        if !errors.isEmpty {
            report.notes.append(
                "concurrency: \(errors.count) operations threw under load and were treated as uncertain; the first: \(errors[0])"
            )
        }
        if let contradiction = outcomes.compactMap(\.contradiction).first {
            report.violations.append(
                ConformanceViolation(
                    law: .concurrentReadsSeeOwnWrites, message: contradiction.message,
                    operations: contradiction.operations, seed: seed))
        } else {
            report.passed.append(.concurrentReadsSeeOwnWrites)
        }
        if checksTorn {
            if let seenTorn = torn?.torn ?? torn?.unproven {
                report.violations.append(
                    ConformanceViolation(
                        law: .batchesAreNeverSeenTorn, message: seenTorn, operations: [], seed: seed))
            } else {
                report.passed.append(.batchesAreNeverSeenTorn)
            }
        }
        do {
            if errors.count > tolerated {
                report.violations.append(
                    ConformanceViolation(
                        law: .concurrentWritesAllLand,
                        message:
                            "\(errors.count) of \(taskCount * operations) operations threw under load (at most \(tolerated) may); the first: \(errors[0])",
                        operations: [], seed: seed))
            } else if let problem = try await Self.finalStateProblem(repository, catalog, outcomes: outcomes)
            {
                report.violations.append(
                    ConformanceViolation(
                        law: .concurrentWritesAllLand, message: problem, operations: [], seed: seed))
            } else {
                report.passed.append(.concurrentWritesAllLand)
            }
        } catch {
            report.violations.append(
                ConformanceViolation(
                    law: .concurrentWritesAllLand, message: "reading the final state threw \(error)",
                    operations: [],
                    seed: seed))
        }
        await release(repository, into: &report)
    }

    /// One task's mixed operations on the keys it alone writes, checking every read of them.
    static func runOwner(
        _ repository: Repo, _ catalog: EntityCatalog<Entity>, keys: [Int], operations: Int,
        random: inout SeededRandomNumberGenerator
    ) async -> OwnerOutcome {
        var outcome = OwnerOutcome(possible: Dictionary(uniqueKeysWithValues: keys.map { ($0, [nil]) }))
        var recent: [String] = []
        func log(_ text: String) {
            recent.append(text)
            if recent.count > 24 { recent.removeFirst() }
        }
        func expectEntity(_ index: Int, _ found: Entity?, _ what: String) -> Bool {
            let options = outcome.possible[index] ?? [nil]
            let matches = options.contains { revision in
                revision.map { catalog.entity(index, $0) == found } ?? (found == nil)
            }
            if !matches, outcome.contradiction == nil {
                let expected = options.map { $0.map { "⟨#\(index) r\($0)⟩" } ?? "nil" }.sorted().joined(
                    separator: " or ")
                outcome.contradiction = (
                    "\(what) of a key only this task writes returned \(catalog.describe(found)), expected \(expected)",
                    recent
                )
            }
            return matches
        }
        func wrote(_ index: Int, _ revision: Int?, succeeded: Bool) {
            if succeeded {
                outcome.possible[index] = [revision]
            } else {
                outcome.possible[index, default: [nil]].insert(revision)
            }
        }

        for _ in 0..<operations where outcome.contradiction == nil {
            let roll = Int.random(in: 0..<100, using: &random)
            let index = keys.randomElement(using: &random) ?? keys[0]
            let revision = Int.random(in: 0..<EntityCatalog<Entity>.revisionLimit, using: &random)
            do {
                switch roll {
                case 0..<35:
                    log("save(⟨#\(index) r\(revision)⟩)")
                    do {
                        try await repository.save(catalog.entity(index, revision))
                        wrote(index, revision, succeeded: true)
                    } catch {
                        wrote(index, revision, succeeded: false)
                        throw error
                    }
                case 35..<45:
                    let batch = Array(
                        Set(
                            (0..<Int.random(in: 1...4, using: &random)).map { _ in
                                keys.randomElement(using: &random) ?? index
                            }))
                    log("save(contentsOf: \(batch.map { "⟨#\($0) r\(revision)⟩" }))")
                    do {
                        try await repository.save(contentsOf: batch.map { catalog.entity($0, revision) })
                        for key in batch { wrote(key, revision, succeeded: true) }
                    } catch {
                        for key in batch { wrote(key, revision, succeeded: false) }
                        throw error
                    }
                case 45..<55:
                    log("delete(id: #\(index))")
                    do {
                        try await repository.delete(id: catalog.id(index))
                        wrote(index, nil, succeeded: true)
                    } catch {
                        wrote(index, nil, succeeded: false)
                        throw error
                    }
                case 55..<60:
                    let doomed = Array(Set((0..<3).map { _ in keys.randomElement(using: &random) ?? index }))
                    log("delete(ids: \(doomed.map { "#\($0)" }))")
                    do {
                        try await repository.delete(ids: doomed.map(catalog.id))
                        for key in doomed { wrote(key, nil, succeeded: true) }
                    } catch {
                        for key in doomed { wrote(key, nil, succeeded: false) }
                        throw error
                    }
                case 60..<85:
                    let found = try await repository.fetch(id: catalog.id(index))
                    log("fetch(id: #\(index)) → \(catalog.describe(found))")
                    _ = expectEntity(index, found, "fetch(id:)")
                case 85..<92:
                    let asked = Array(keys.shuffled(using: &random).prefix(4))
                    let found = try await repository.fetch(ids: asked.map(catalog.id))
                    log("fetch(ids: \(asked.map { "#\($0)" })) → \(catalog.describe(found))")
                    var byIndex: [Int: Entity] = [:]
                    for entity in found {
                        if let key = catalog.index(of: entity.id) { byIndex[key] = entity }
                    }
                    for key in asked where !expectEntity(key, byIndex[key], "fetch(ids:)") { break }
                case 92..<97:
                    let all = try await repository.fetchAll()
                    log("fetchAll() → \(all.count) entities")
                    var byIndex: [Int: Entity] = [:]
                    for entity in all { if let key = catalog.index(of: entity.id) { byIndex[key] = entity } }
                    for key in keys where !expectEntity(key, byIndex[key], "fetchAll()") { break }
                default:
                    log("count() → \(try await repository.count())")
                }
            } catch {
                outcome.errors.append("\(recent.last ?? "an operation") threw \(error)")
            }
        }
        return outcome
    }

    /// What the batch writer and its readers saw.
    struct TornOutcome: Sendable {
        var torn: String?
        var errors: [String] = []
        var landedBatches = 0
        var readsThatSawABatch = 0

        /// Why nothing was shown, if nothing was: no batch landed, or no reader saw one.
        var unproven: String? {
            if landedBatches == 0 {
                return "no batch landed while readers watched (every save(contentsOf:) threw)"
            }
            if readsThatSawABatch == 0 { return "no reader saw a batch while batches were being saved" }
            return nil
        }
    }

    /// Saves whole batches over `range` while two readers check they never see part of one.
    ///
    /// The writer starts once both readers have read once, so the two overlap even on a
    /// store fast enough to finish every batch before a reader is scheduled.
    static func hammerBatches(
        _ repository: Repo, _ catalog: EntityCatalog<Entity>, range: Range<Int>, rounds: Int
    ) async -> TornOutcome {
        let revisions = 0..<EntityCatalog<Entity>.revisionLimit
        let batches = revisions.map { revision in range.map { catalog.entity($0, revision) } }
        let readersStarted = SharedCounter()
        let writerDone = SharedCounter()
        return await withTaskGroup(of: TornOutcome.self) { group in
            group.addTask {
                var outcome = TornOutcome()
                while readersStarted.value < 2 { await Task.yield() }
                for round in 0..<rounds {
                    do {
                        try await repository.save(contentsOf: batches[round % batches.count])
                        outcome.landedBatches += 1
                        await Task.yield()  // let readers look between batches, however fast the store
                    } catch {
                        // The readers check what is visible whether or not the batch landed.
                        outcome.errors.append("save(contentsOf:) of a batch threw \(error)")
                    }
                }
                writerDone.increment()
                return outcome
            }
            for _ in 0..<2 {
                group.addTask {
                    var outcome = TornOutcome()
                    var first = true
                    var lastRead = false
                    while outcome.torn == nil && !lastRead {
                        // One more read once the writer is done, so every reader sees a batch.
                        lastRead = writerDone.value > 0
                        // A store that never suspends would otherwise keep this reader on
                        // its thread and starve the writer of the cooperative pool.
                        await Task.yield()
                        defer {
                            if first { readersStarted.increment() }
                            first = false
                        }
                        let all: [Entity]
                        do {
                            all = try await repository.fetchAll()
                        } catch {
                            outcome.errors.append("fetchAll() beside concurrent batches threw \(error)")
                            continue
                        }
                        let seen = all.filter { catalog.index(of: $0.id).map(range.contains) ?? false }
                        if seen.isEmpty { continue }
                        outcome.readsThatSawABatch += 1
                        let whole = batches.contains { batch in
                            batch.count == seen.count && batch.allSatisfy { seen.contains($0) }
                        }
                        if !whole {
                            outcome.torn =
                                "fetchAll() during concurrent batches of \(range.count) showed part of a batch: \(catalog.describe(seen))"
                        }
                    }
                    if first { readersStarted.increment() }
                    return outcome
                }
            }
            var merged = TornOutcome()
            for await outcome in group {
                merged.torn = merged.torn ?? outcome.torn
                merged.errors += outcome.errors
                merged.landedBatches += outcome.landedBatches
                merged.readsThatSawABatch += outcome.readsThatSawABatch
            }
            return merged
        }
    }

    /// Compares the stored state with what the owner tasks' successful operations imply.
    static func finalStateProblem(
        _ repository: Repo, _ catalog: EntityCatalog<Entity>, outcomes: [OwnerOutcome]
    ) async throws -> String? {
        let all = try await repository.fetchAll()
        let count = try await repository.count()
        if count != all.count {
            return
                "after the concurrent run count() returned \(count) while fetchAll() returned \(all.count) entities"
        }
        var byIndex: [Int: Entity] = [:]
        for entity in all {
            guard let index = catalog.index(of: entity.id) else {
                return
                    "after the concurrent run fetchAll() holds \(catalog.describe(entity)), which no task wrote"
            }
            if byIndex.updateValue(entity, forKey: index) != nil {
                return "after the concurrent run fetchAll() holds #\(index) twice"
            }
        }
        for outcome in outcomes {
            for (index, options) in outcome.possible.sorted(by: { $0.key < $1.key }) {
                let found = byIndex[index]
                let matches = options.contains { revision in
                    revision.map { catalog.entity(index, $0) == found } ?? (found == nil)
                }
                if !matches {
                    let expected = options.map { $0.map { "⟨#\(index) r\($0)⟩" } ?? "nil" }.sorted().joined(
                        separator: " or ")
                    return
                        "after the concurrent run #\(index) is \(catalog.describe(found)), but the operations that succeeded leave it \(expected) (a lost or misplaced write)"
                }
            }
        }
        return nil
    }
}

/// A number tasks raise and others poll.
final class SharedCounter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
