extension FileRepository {
    /// How many entities one record of a compacted snapshot holds.
    static var snapshotChunk: Int { 4_096 }

    /// Rewrites the store as a snapshot of its live entities, now.
    ///
    /// Compaction also runs by itself when records of replaced and deleted entities
    /// outnumber live ones (and exceed ``Options/compactionThreshold``).
    ///
    /// - Throws: what writing the snapshot threw; the store is then unchanged.
    public func compact() async throws {
        try state.withLock { try $0.checkUsable(fileURL) }
        try await Self.onQueue(writer) { [self] in try rewriteSnapshot() }
    }

    /// Why the last automatic compaction failed, or `nil`; a failed compaction changes
    /// nothing and is tried again after later writes.
    public var lastCompactionError: RepositoryError? {
        state.withLock { $0.compactionError }
    }

    /// Compacts when dead records outweigh live ones. Runs on the writer queue.
    func compactIfDue() {
        let due = state.withLock { state in
            !state.isClosed && state.deadRecords > max(state.index.count, options.compactionThreshold)
        }
        guard due else { return }
        do {
            try rewriteSnapshot()
        } catch let error as RepositoryError {
            state.withLock { $0.compactionError = error }
        } catch {
            state.withLock {
                $0.compactionError = .unavailable(
                    "Compaction failed", location: fileURL.path, underlying: error)
            }
        }
    }

    /// Writes the live entities to a temporary file, flushes it, renames it over the store
    /// and flushes the directory. Before the rename the old file is whole; after it the new
    /// one is; so a crash at any point loses nothing. Runs on the writer queue.
    private func rewriteSnapshot() throws {
        guard let old = journal.file, !state.withLock({ $0.isClosed }) else {
            throw RepositoryError.closed(location: fileURL.path)
        }
        let path = fileURL.path
        let temporaryPath = path + Self.compactingSuffix
        let entities = state.withLock { $0.index.all() }
        let encoder = options.makeEncoder()
        var bytes = JournalFormat.header()
        var start = 0
        while start < entities.count {
            let chunk = entities[start..<min(start + Self.snapshotChunk, entities.count)]
            let encoded = try chunk.map { try encode($0, with: encoder) }
            bytes += JournalFormat.record(.batch, payload: JournalFormat.batchPayload(encoded))
            start += Self.snapshotChunk
        }
        try JournalFile.remove(temporaryPath)
        let snapshot = try JournalFile.create(path: temporaryPath)
        do {
            try snapshot.write(bytes, at: 0)
            try snapshot.synchronize()
            guard try snapshot.tryLock() else { throw RepositoryError.locked(location: temporaryPath) }
            try JournalFile.rename(temporaryPath, over: path)
        } catch {
            snapshot.close()
            try? JournalFile.remove(temporaryPath)  // best effort: opening removes leftovers too
            throw error
        }
        snapshot.path = path
        journal.file = snapshot
        old.close()
        state.withLock { state in
            state.fileLength = bytes.count
            state.totalRecords = entities.count
            state.unsynchronized = false
            state.compactionError = nil
        }
        do {
            try JournalFile.synchronizeDirectory(of: path)
        } catch {
            // The rename may not survive a power loss, and with it every write after it:
            // refuse further calls rather than acknowledge writes that could vanish.
            stopAcceptingCalls(after: error)
            throw error
        }
    }
}
