import Dispatch

extension FileRepository {
    /// Queues `bytes` for the writer and waits until they are durable, then applies
    /// `mutation` to the index. The first writer to arrive starts the drain; the others
    /// join the batch it is about to write (group commit).
    func submit(_ bytes: [UInt8], _ mutation: _FileState<Entity>.Mutation) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Bool, any Error> = state.withLock { state in
                do {
                    try state.checkWritable(fileURL)
                } catch {
                    return .failure(error)
                }
                state.pending.append(.init(bytes: bytes, mutation: mutation, continuation: continuation))
                defer { state.draining = true }
                return .success(!state.draining)
            }
            switch outcome {
            case .failure(let error): continuation.resume(throwing: error)
            case .success(true): writer.async { [self] in drain() }
            case .success(false): break
            }
        }
    }

    /// Writes queued records in batches, one write and (by default) one fsync each, until
    /// the queue is empty. Runs on the writer queue.
    func drain() {
        while true {
            let batch: [_FileState<Entity>.PendingWrite] = state.withLock { state in
                if state.pending.isEmpty {
                    state.draining = false
                    return []
                }
                defer { state.pending.removeAll(keepingCapacity: true) }
                return state.pending
            }
            if batch.isEmpty { return }
            do {
                try append(batch.map(\.bytes))
                state.withLock { state in
                    for write in batch { state.apply(write.mutation) }
                }
                for write in batch { write.continuation.resume() }
            } catch {
                for write in batch { write.continuation.resume(throwing: error) }
            }
            compactIfDue()
        }
    }

    /// Appends `records` at the end of the file with one write, flushes as the durability
    /// option says, and checks that the path still names the file before the writers are
    /// told yes.
    ///
    /// A failed write is cut back off and leaves the store writable (the next write tries
    /// again); when the cut fails too and the write left bytes behind, the next write cuts
    /// them first. A failed flush leaves the file's contents unknown, and a file deleted or
    /// replaced under the store no longer holds what it writes: either refuses every later
    /// write until the store is reopened.
    private func append(_ records: [[UInt8]]) throws {
        guard let file = journal.file else { throw RepositoryError.closed(location: fileURL.path) }
        // Not `checkWritable`: writes accepted before `close()` are still written.
        let (offset, needsCut) = try state.withLock { state in
            if let refusal = state.writeRefusal { throw refusal }
            return (state.fileLength, state.tailNeedsCut)
        }
        if needsCut {
            try file.truncate(to: offset)
            state.withLock { $0.tailNeedsCut = false }
        }
        let bytes = records.count == 1 ? records[0] : Array(records.joined())
        do {
            try file.write(bytes, at: offset)
        } catch {
            try refuseWritesIfMoved(file)
            cutBack(file, to: offset)
            throw error
        }
        state.withLock { $0.fileLength = offset + bytes.count }
        switch options.durability {
        case .everyWrite:
            do {
                try file.synchronize()
            } catch {
                stopAcceptingWrites(after: error)
                throw error
            }
        case .interval(let interval):
            let first = state.withLock { state in
                defer { state.unsynchronized = true }
                return !state.unsynchronized
            }
            if first { scheduleSynchronize(after: interval) }
        case .never:
            state.withLock { $0.unsynchronized = true }
        }
        try refuseWritesIfMoved(file)
    }

    /// Cuts what a failed write may have left past `offset`. Cutting can fail for the
    /// reason the write did (an immutable file, a read-only file system); when the write
    /// left nothing there is nothing to cut, else the next write cuts first.
    private func cutBack(_ file: JournalFile, to offset: Int) {
        do {
            try file.truncate(to: offset)
            return
        } catch {
            // The caller sees the write's error; whether the tail is clean decides what comes next.
        }
        let clean: Bool
        do {
            clean = try file.length() == offset
        } catch {
            clean = false
        }
        if !clean { state.withLock { $0.tailNeedsCut = true } }
    }

    /// Throws, and refuses every later write, when the store's path no longer names the
    /// open file: writes would land in a file nobody will open again, and compaction would
    /// rename over someone else's file.
    func refuseWritesIfMoved(_ file: JournalFile) throws {
        let path = fileURL.path
        let reason: String
        switch try file.placement() {
        case .inPlace:
            return
        case .missing:
            reason = "The store file was deleted or moved away while the store had it open"
        case .replaced:
            reason =
                "Another file took the store file's place (renamed over it, or made after it was deleted) while the store had it open"
        }
        let error = RepositoryError(
            .rejected,
            reason: reason + ", so the store refuses every write rather than write where nobody will read",
            recovery:
                "The file now at that path was not touched. Reads still answer from what this store holds: fetch what you need, close the store, open the file you mean to use, and save it there",
            location: path)
        state.withLock { state in
            if state.writeRefusal == nil { state.writeRefusal = error }
        }
        throw error
    }

    private func scheduleSynchronize(after interval: Duration) {
        let (seconds, attoseconds) = interval.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        writer.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self, let file = journal.file else { return }
            do {
                try file.synchronize()
                state.withLock { $0.unsynchronized = false }
            } catch {
                stopAcceptingWrites(after: error)
            }
        }
    }

    /// Refuses every later write: after a failed flush the store cannot vouch for the file.
    /// Reads go on answering from what the store holds.
    func stopAcceptingWrites(after error: any Error) {
        state.withLock { state in
            guard state.writeRefusal == nil else { return }
            state.writeRefusal = RepositoryError(
                .unavailable,
                reason:
                    "The store refuses writes after a failed flush to disk, so it cannot vouch for the file; reads still answer from what it holds",
                recovery: "Close the store and open it again; opening checks every record",
                location: fileURL.path,
                underlying: error)
        }
    }
}
