extension FileRepository {
    /// How many entities one record of a compacted snapshot holds at most (fewer when
    /// their JSON would pass one record's size limit).
    static var snapshotChunk: Int { 4_096 }

    /// Rewrites the store as a snapshot of its live entities, now.
    ///
    /// Compaction also runs by itself when records of replaced and deleted entities
    /// outnumber live ones (and exceed ``Options/compactionThreshold``).
    ///
    /// Compaction never renames over a file that is not the store's own: when the path no
    /// longer names the open file (deleted, or another file renamed over it), it throws
    /// `rejected` naming the path, leaves that file as it is, and the store refuses writes
    /// from then on.
    ///
    /// - Throws: what writing the snapshot threw; the store is then unchanged.
    public func compact() async throws {
        try state.withLock { try $0.checkWritable(fileURL) }
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
            !state.isClosed && state.writeRefusal == nil
                && state.deadRecords > max(state.index.count, options.compactionThreshold)
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
    /// one is; so a crash at any point loses nothing. Checks just before the rename that
    /// the path still names the store's file. Runs on the writer queue.
    private func rewriteSnapshot() throws {
        guard let old = journal.file, !state.withLock({ $0.isClosed }) else {
            throw RepositoryError.closed(location: fileURL.path)
        }
        try state.withLock { state in
            if let refusal = state.writeRefusal { throw refusal }
        }
        try refuseWritesIfMoved(old)
        let path = fileURL.path
        let temporaryPath = path + Self.compactingSuffix
        let entities = state.withLock { $0.index.all() }
        let limit = recordLimit
        var bytes = JournalFormat.header(format: format, codec: codec.identifier)
        var chunk: [[UInt8]] = []
        var chunkLength = JournalFormat.batchCountSize
        for entity in entities {
            let encoded = try encode(entity)
            try Self.checkEntitySize(encoded.count, id: "\(entity.id)", recordLimit: limit, path: path)
            let entryLength = JournalFormat.batchEntrySize + UInt64(encoded.count)
            if chunk.count == Self.snapshotChunk || chunkLength + entryLength > limit {
                bytes += JournalFormat.record(
                    .batch, stamp: recordStamp, payload: JournalFormat.batchPayload(chunk))
                chunk.removeAll(keepingCapacity: true)
                chunkLength = JournalFormat.batchCountSize
            }
            chunk.append(encoded)
            chunkLength += entryLength
        }
        if !chunk.isEmpty {
            bytes += JournalFormat.record(
                .batch, stamp: recordStamp, payload: JournalFormat.batchPayload(chunk))
        }
        try JournalFile.remove(temporaryPath)
        let snapshot = try JournalFile.create(path: temporaryPath)
        do {
            try snapshot.write(bytes, at: 0)
            try snapshot.synchronize()
            guard try snapshot.tryLock() else { throw RepositoryError.locked(location: temporaryPath) }
            try refuseWritesIfMoved(old)
            try JournalFile.rename(temporaryPath, over: path)
        } catch {
            snapshot.close()
            try? JournalFile.remove(temporaryPath)  // best effort: opening removes leftovers too
            throw error
        }
        snapshot.path = path
        snapshot.hooks = hooks
        journal.file = snapshot
        old.close()
        state.withLock { state in
            state.fileLength = bytes.count
            state.totalRecords = entities.count
            state.unsynchronized = false
            state.tailNeedsCut = false  // the new file holds nothing past its last record
            state.compactionError = nil
        }
        do {
            try JournalFile.synchronizeDirectory(of: path)
        } catch {
            // The rename may not survive a power loss, and with it every write after it:
            // refuse further calls rather than acknowledge writes that could vanish.
            stopAcceptingWrites(after: error)
            throw error
        }
    }
}
