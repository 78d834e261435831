import Synchronization

/// The steps of an offline-first write and sync at which the package's crash tests stop
/// a real child process with SIGKILL, to prove every acknowledged change survives each.
package enum _OfflineFirstStep: String, Sendable, CaseIterable {
    /// A write holds its IDs and is about to record and apply its change.
    case writing
    /// The outbox holds the change durably; the local store may not yet.
    case recorded
    /// The local store holds the change; the outbox may not yet.
    case applied
    /// A sync is about to send changes to the remote: nothing of them is sent yet.
    case sending
    /// The remote took changes; the outbox does not know yet.
    case sent
    /// A pull read the remote's state and is about to write it locally (before the saves,
    /// and again before the deletes).
    case pulling
}

/// Where the crash tests hear each ``_OfflineFirstStep``; `nil` (and one lock) otherwise.
package enum _OfflineFirstTestHooks {
    /// Called at every step, on the task that reached it.
    package static let onStep = Mutex<(@Sendable (_OfflineFirstStep) -> Void)?>(nil)

    /// Awaited at the steps a test holds a task at (``reachedHolding(_:)``), on the task that
    /// reached it: a test makes another instance write there, then lets the task go on.
    package static let holdingStep = Mutex<(@Sendable (_OfflineFirstStep) async -> Void)?>(nil)

    static func reached(_ step: _OfflineFirstStep) {
        onStep.withLock { $0 }?(step)
    }

    /// Reaches `step`, then awaits ``holdingStep``'s hook, if a test set one.
    static func reachedHolding(_ step: _OfflineFirstStep) async {
        reached(step)
        if let hold = holdingStep.withLock({ $0 }) { await hold(step) }
    }
}
