import Dispatch

extension FileRepository {
    /// Queues `bytes` for the writer and waits until they are durable, then applies
    /// `mutation` to the index. The first writer to arrive starts the drain; the others
    /// join the batch it is about to write (group commit).
    func submit(_ bytes: [UInt8], _ mutation: _FileState<Entity>.Mutation) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Bool, any Error> = state.withLock { state in
                do {
                    try state.checkUsable(fileURL)
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

    /// Appends `records` at the end of the file with one write, then flushes as the
    /// durability option says. A failed write is cut back off; a failed flush leaves the
    /// file's contents unknown, so the store stops accepting calls.
    private func append(_ records: [[UInt8]]) throws {
        guard let file = journal.file else { throw RepositoryError.closed(location: fileURL.path) }
        let offset = state.withLock { $0.fileLength }
        let bytes = records.count == 1 ? records[0] : Array(records.joined())
        do {
            try file.write(bytes, at: offset)
        } catch {
            do {
                try file.truncate(to: offset)
            } catch {
                stopAcceptingCalls(after: error)
            }
            throw error
        }
        state.withLock { $0.fileLength = offset + bytes.count }
        switch options.durability {
        case .everyWrite:
            do {
                try file.synchronize()
            } catch {
                stopAcceptingCalls(after: error)
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
                stopAcceptingCalls(after: error)
            }
        }
    }

    func stopAcceptingCalls(after error: any Error) {
        state.withLock { state in
            state.failure = RepositoryError(
                .unavailable,
                reason:
                    "The store stopped accepting calls after a failed write to disk, so it cannot vouch for the file",
                recovery: "Close the store and open it again; opening checks every record",
                location: fileURL.path,
                underlying: error)
        }
    }
}
