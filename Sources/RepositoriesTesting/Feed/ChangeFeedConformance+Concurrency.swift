import Repositories
import Synchronization

// Many writers at once, one reader paging through them.
extension ChangeFeedConformance {
    /// What one writer task did.
    struct WriterOutcome: Sendable {
        /// How many IDs its writes named.
        var writtenIDs = 0
        /// The writes that threw (the store may refuse some under load), described.
        var errors: [String] = []
    }

    func concurrentWritesAreNeverSkipped(_ probe: _FeedProbe<Repo>, seed: UInt64) async throws {
        let writers = max(1, options.concurrentWriters)
        let writes = max(1, options.writesPerWriter)
        let keys = Self.sharedKeys(writers: writers)
        try await probe.save(contentsOf: probe.entities(0..<min(keys, 16)))
        let store = probe.writer
        let catalog = probe.catalog
        let finished = _FinishedWriters()
        var mirror = _FeedMirror<Entity>()
        var cursor: SyncCursor? = nil
        var pagesRead = 0

        let outcomes = try await withThrowingTaskGroup(of: WriterOutcome.self) { group in
            for writer in 0..<writers {
                let writerSeed = seed &+ UInt64(writer) &* 0x9E37_79B9
                group.addTask {
                    defer { finished.add() }
                    var random = SeededRandomNumberGenerator(seed: writerSeed)
                    return await Self.write(
                        store, catalog, keys: keys, writes: writes, random: &random)
                }
            }
            // The reader pages while the writers write, as a device syncing during a busy hour.
            while finished.count < writers {
                let page = try await probe.page(since: cursor, traced: false)
                mirror.apply(page)
                cursor = page.next
                pagesRead += 1
                if !page.hasMore { await Task.yield() }
            }
            var outcomes: [WriterOutcome] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        let written = outcomes.map(\.writtenIDs).reduce(0, +)
        probe.countWrites(written)
        let errors = outcomes.flatMap(\.errors)
        if !errors.isEmpty {
            probe.report(
                "concurrentWritesAreNeverSkipped: \(errors.count) writes threw under load; the first: \(errors[0])"
            )
        }
        probe.note(
            "— \(writers) tasks made \(writers * writes) writes over \(keys) IDs while the reader read \(pagesRead) pages; "
                + "then the reader pages on from \(probe.name(of: cursor)) —")
        try await probe.readToEnd(from: cursor, applyingTo: &mirror)
        try await probe.expect(
            mirror,
            matchesStore:
                "after \(writers) tasks wrote at once while the reader paged, and the reader paged to the end"
        )
    }

    /// One writer's random saves, batch saves, deletes, batch deletes and, rarely,
    /// `deleteAll()`, over keys every writer shares.
    static func write(
        _ store: any Repository<Entity, Repo.ID>, _ catalog: EntityCatalog<Entity>, keys: Int, writes: Int,
        random: inout SeededRandomNumberGenerator
    ) async -> WriterOutcome {
        var outcome = WriterOutcome()
        for _ in 0..<writes {
            let key = Int.random(in: 0..<keys, using: &random)
            let revision = Int.random(in: 0..<EntityCatalog<Entity>.revisionLimit, using: &random)
            let roll = Int.random(in: 0..<1_000, using: &random)
            let others = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                Int.random(in: 0..<keys, using: &random)
            }
            do {
                switch roll {
                case 0..<400:
                    try await store.save(catalog.entity(key, revision))
                    outcome.writtenIDs += 1
                case 400..<550:
                    let batch = ([key] + others).map { catalog.entity($0, revision) }
                    try await store.save(contentsOf: batch)
                    outcome.writtenIDs += batch.count
                case 550..<800:
                    try await store.delete(id: catalog.id(key))
                    outcome.writtenIDs += 1
                case 800..<997:
                    let ids = ([key] + others).map(catalog.id)
                    try await store.delete(ids: ids)
                    outcome.writtenIDs += ids.count
                default:
                    try await store.deleteAll()
                    outcome.writtenIDs += keys
                }
            } catch {
                outcome.errors.append("\(error)")
            }
            // Spreads the writes out, so that the reader's pages fall between them even over
            // a store that answers in microseconds.
            await Task.yield()
        }
        return outcome
    }
}

/// How many writer tasks finished, shared by the writers and the reader that pages until
/// they are all done.
final class _FinishedWriters: Sendable {
    private let finished = Mutex(0)

    /// Counts one more writer finished.
    func add() {
        finished.withLock { $0 += 1 }
    }

    /// How many writers finished.
    var count: Int { finished.withLock { $0 } }
}
