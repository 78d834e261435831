import Repositories

extension HostileRemote {
    /// One change the remote applied: a save of `value`, or a delete when `value` is `nil`.
    ///
    /// `value` is the entity as the caller sent it, before ``HostileRemote/normalize(_:)`` and
    /// ``HostileRemote/stamp(_:)``; `stored` is what the remote kept. Applications are
    /// counted by this identity (the ID and the content sent), not by idempotency key, so a
    /// change sent twice under two keys counts twice.
    public struct Application: Sendable {
        /// The ID the change was applied to.
        public var id: ID
        /// The entity as sent, or `nil` for a delete.
        public var value: Entity?
        /// The entity the remote stored after normalising and stamping it; `nil` for a delete.
        public var stored: Entity?
        /// The idempotency key the request carried, if any.
        public var key: String?
    }

    /// What the remote did with one write request.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        /// Applied, and the answer reached the caller.
        case applied
        /// The key was seen before: the first answer was given again, nothing applied.
        case replayed
        /// Refused (a 4xx, or `conflict` for a stale `If-Match` or an ID a create found held)
        /// after applying `applied` of its items: a batch applied item by item stops at the
        /// refused one.
        case refused(applied: Int)
        /// Applied, then the answer was lost: the caller heard a transient error.
        case answerLost
        /// Held back: the caller heard a timeout at once, and the write lands when
        /// ``HostileRemote/releaseLateWrites()`` is called.
        case late
        /// The remote was offline: nothing happened.
        case offline

        /// The outcome in a few words.
        public var description: String {
            switch self {
            case .applied: "applied"
            case .replayed: "replayed the first answer"
            case .refused(let applied): "refused after applying \(applied)"
            case .answerLost: "applied, answer lost"
            case .late: "held, lands late"
            case .offline: "offline"
            }
        }
    }

    /// One write request as the remote saw it, in the order they arrived.
    public struct Request: Sendable, CustomStringConvertible {
        /// The operation called (a conditional write is its plain operation).
        public var operation: RepositoryOperation
        /// The IDs the request touched, in order.
        public var ids: [ID]
        /// Its idempotency key (`IdempotencyKey.current` at the call), if any.
        public var key: String?
        /// The `If-Match` tag it carried, if any.
        public var ifMatch: String?
        /// The `If-None-Match` condition it carried: `*` for a
        /// ``HostileRemote/saveIfAbsent(_:)``, else `nil`.
        public var ifNoneMatch: String?
        /// What the remote did with it.
        public var outcome: Outcome

        /// "save(contentsOf:) [1, 2] key k: applied".
        public var description: String {
            let conditions =
                (ifMatch.map { " If-Match \($0)" } ?? "") + (ifNoneMatch.map { " If-None-Match \($0)" } ?? "")
            return "\(operation) \(ids) key \(key ?? "none")\(conditions): \(outcome)"
        }
    }

    /// A change applied more than once, with how often.
    public struct Overapplication: Sendable, CustomStringConvertible {
        /// The ID it was applied to.
        public var id: ID
        /// The entity as sent, or `nil` for a delete.
        public var value: Entity?
        /// How many times it was applied.
        public var count: Int

        /// "save of 1 applied 2 times".
        public var description: String {
            "\(value == nil ? "delete" : "save") of \(id) applied \(count) times"
        }
    }
}
