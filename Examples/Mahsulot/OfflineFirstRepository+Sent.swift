import ExampleSupport
import Repositories

extension OfflineFirstRepository {
    /// Waits until no change is left waiting to be sent (refused ones aside), by watching
    /// ``OfflineFirstRepository/pendingChanges()``: the automatic sync sends them, the caller
    /// does not.
    ///
    /// - Parameter limit: how long to wait before giving up, so a run whose change never
    ///   goes out fails instead of hanging; not a measure of speed. Alone the change goes
    ///   out within a second; CI saw the whole test suite on two cores leave the sync's task
    ///   waiting more than 60 s for a thread.
    /// - Throws: ``StoryFailure`` when changes still wait after `limit`, or when the outbox
    ///   can no longer be read.
    func waitUntilSent(limit: Duration = .seconds(300)) async throws {
        let outcome = await withTaskGroup(of: WaitOutcome.self) { group in
            group.addTask {
                for await changes in pendingChanges() where changes.allSatisfy(\.isRejected) { return .sent }
                return .outboxUnreadable
            }
            group.addTask {
                // Cancelled as soon as the other task ends: that ends the wait, it is no error.
                do { try await Task.sleep(for: limit) } catch {}
                return .gaveUp
            }
            let first = await group.next() ?? .gaveUp
            group.cancelAll()
            return first
        }
        switch outcome {
        case .sent:
            return
        case .outboxUnreadable:
            throw StoryFailure(
                "\(outbox.fileURL.lastPathComponent) can no longer be read, so nothing more is sent")
        case .gaveUp:
            throw StoryFailure(
                "The automatic sync did not send the waiting changes within \(limit) of the network's return; "
                    + "the last sync's error: \(lastSyncError.map { "\($0)" } ?? "none")")
        }
    }
}

/// How a wait for the outbox to empty ended.
private enum WaitOutcome: Sendable {
    /// No change waits any more.
    case sent
    /// The pending changes' stream ended: the outbox was closed or cannot be read.
    case outboxUnreadable
    /// The limit passed first.
    case gaveUp
}
