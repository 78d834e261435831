import Repositories

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
        let pacer = _WriterPacer(writers: writers, writesPerPage: 2)
        var mirror = _FeedMirror<Entity>()
        var cursor: SyncCursor? = nil
        var pagesRead = 0

        let outcomes = try await withThrowingTaskGroup(of: WriterOutcome.self) { group in
            for writer in 0..<writers {
                let writerSeed = seed &+ UInt64(writer) &* 0x9E37_79B9
                group.addTask {
                    defer { pacer.writerFinished() }
                    var random = SeededRandomNumberGenerator(seed: writerSeed)
                    return await Self.write(
                        store, catalog, writer: writer, shared: keys, writes: writes, pacer: pacer,
                        random: &random)
                }
            }
            // The reader pages while the writers write, as a device syncing during a busy
            // hour; each page it starts lets the next writes go, so they land between and
            // during its reads however fast the store answers.
            do {
                while !pacer.allWritersFinished {
                    pacer.pageStarted()
                    let page = try await probe.page(since: cursor, traced: false)
                    mirror.apply(page)
                    cursor = page.next
                    pagesRead += 1
                    // A store that answers without suspending must still let the writers run,
                    // on a pool of threads other tests share.
                    await Task.yield()
                }
            } catch {
                pacer.releaseAll()
                throw error
            }
            var outcomes: [WriterOutcome] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        let written = outcomes.map(\.writtenIDs).reduce(0, +)
        probe.countWrites(written)
        let errors = outcomes.flatMap(\.errors)
        // A store may refuse a write now and then under load, but one that refuses many has
        // not shown that its feed keeps up with them.
        let tolerated = writers * writes / 20
        try probe.expect(
            errors.count <= tolerated,
            "\(errors.count) of \(writers * writes) writes threw under load (at most \(tolerated) may); "
                + "the first: \(errors.first ?? "")")
        if !errors.isEmpty {
            probe.report(
                "concurrentWritesAreNeverSkipped: \(errors.count) writes threw under load; the first: \(errors[0])"
            )
        }
        probe.note(
            "— \(writers) tasks made \(writers * writes) writes, over \(keys) shared IDs and their own, "
                + "while the reader read \(pagesRead) pages; then it pages on from \(probe.name(of: cursor)) —"
        )
        try await probe.readToEnd(from: cursor, applyingTo: &mirror)
        try await probe.expect(
            mirror,
            matchesStore:
                "after \(writers) tasks wrote at once while the reader paged, and the reader paged to the end"
        )
    }

    /// One writer's random writes: saves of entities of its own that nothing writes again
    /// (so a write the feed passes over is never mended by a later one), and saves, batch
    /// saves, deletes and batch deletes over `shared` keys every writer uses; writer 0 also
    /// deletes everything halfway.
    static func write(
        _ store: any Repository<Entity, Repo.ID>, _ catalog: EntityCatalog<Entity>, writer: Int, shared: Int,
        writes: Int, pacer: _WriterPacer, random: inout SeededRandomNumberGenerator
    ) async -> WriterOutcome {
        var outcome = WriterOutcome()
        let ownKeys = Self.ownKeys(of: writer, shared: shared, writes: writes)
        for step in 0..<writes {
            let key = Int.random(in: 0..<shared, using: &random)
            let revision = Int.random(in: 0..<EntityCatalog<Entity>.revisionLimit, using: &random)
            let roll = Int.random(in: 0..<100, using: &random)
            let others = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                Int.random(in: 0..<shared, using: &random)
            }
            await pacer.awaitTurn()
            do {
                if writer == 0 && step == writes / 2 {
                    try await store.deleteAll()
                    outcome.writtenIDs += shared + writes
                    continue
                }
                switch roll {
                case 0..<35:
                    try await store.save(catalog.entity(ownKeys.lowerBound + step, revision))
                    outcome.writtenIDs += 1
                case 35..<55:
                    try await store.save(catalog.entity(key, revision))
                    outcome.writtenIDs += 1
                case 55..<70:
                    let batch = ([key] + others).map { catalog.entity($0, revision) }
                    try await store.save(contentsOf: batch)
                    outcome.writtenIDs += batch.count
                case 70..<85:
                    try await store.delete(id: catalog.id(key))
                    outcome.writtenIDs += 1
                default:
                    let ids = ([key] + others).map(catalog.id)
                    try await store.delete(ids: ids)
                    outcome.writtenIDs += ids.count
                }
            } catch {
                outcome.errors.append("\(error)")
            }
        }
        return outcome
    }

    /// The indexes only `writer` saves, one for each of its writes, after the shared ones.
    static func ownKeys(of writer: Int, shared: Int, writes: Int) -> Range<Int> {
        let first = shared + writer * writes
        return first..<(first + writes)
    }
}
