/// A failure of a decorator's second store (the local mirror of a
/// ``RemoteFirstRepository``, the cache of a ``CacheAsideRepository`` or a
/// ``WriteThroughRepository``) that the decorator worked around instead of throwing.
///
/// Decorators hand these to an `onTierFailure` callback so that a failing cache or
/// mirror is visible (log it, count it) without failing a call the primary store answered.
/// A failure that the decorator cannot work around is thrown instead, and each decorator's
/// documentation says which are which.
public struct TierFailure: Error, Sendable, CustomStringConvertible {
    /// What the decorator was doing with the second store.
    public enum Stage: String, Sendable, Hashable, CustomStringConvertible {
        /// Reading it; the answer came from the primary store, or the primary's error was thrown.
        case read
        /// Copying an answer of the primary store into it; the answer was still returned.
        case fill
        /// Removing a copy that a write made stale; the copy is no longer served by this
        /// process, whose reads go to the primary store until the copy is rewritten.
        case invalidate

        /// The stage's name.
        public var description: String { rawValue }
    }

    /// What the decorator was doing.
    public var stage: Stage
    /// The caller's operation during which it happened, or `nil` during an explicit
    /// ``InvalidatableRepository/invalidate(ids:)`` or ``InvalidatableRepository/invalidateAll()``.
    public var operation: RepositoryOperation?
    /// The error the second store threw.
    public var error: any Error

    /// Creates a failure report.
    public init(stage: Stage, operation: RepositoryOperation?, error: any Error) {
        self.stage = stage
        self.operation = operation
        self.error = error
    }

    /// A sentence naming the stage, the operation and the error.
    public var description: String {
        let during = operation.map { "during \($0)" } ?? "during an invalidation"
        return "The second store failed to \(stage) \(during): \(error)"
    }
}
