import Foundation

extension SQLiteOptions {
    /// How long a ``SQLiteRepository``'s change feed remembers the IDs it deleted (its
    /// tombstones): ``forever`` by default.
    ///
    /// A reader of the feed learns of a deletion from its tombstone. Forgetting tombstones
    /// keeps the change log from growing with every ID ever deleted, at a price: a cursor from
    /// before the newest tombstone forgotten can no longer be answered, and throws
    /// `RepositoryError` `cursorExpired`; its reader then reads every entity again from `nil`.
    /// The bound below which cursors expire is kept in the file, so it holds across reopening.
    ///
    /// ```swift
    /// // A server whose devices sync at least monthly.
    /// let options = SQLiteOptions(tombstoneRetention: .age(.seconds(30 * 24 * 60 * 60)))
    /// ```
    ///
    /// The repository forgets what its retention no longer keeps when it opens, after every
    /// 1,024 deletions (or a `deleteAll()`), and when ``SQLiteRepository/pruneTombstones(keeping:)`` is
    /// called. The log's newest entry is kept whatever the retention, since the next change
    /// number follows it.
    public struct TombstoneRetention: Sendable, Hashable, CustomStringConvertible {
        enum Rule: Sendable, Hashable {
            case forever
            case newest(Int)
            case age(Duration)
        }

        let rule: Rule

        /// Keeps every tombstone: no cursor ever expires. The default.
        public static let forever = TombstoneRetention(rule: .forever)

        /// Keeps the `count` most recent deletions (none, for `0` or less) and forgets older
        /// ones.
        public static func newest(_ count: Int) -> TombstoneRetention {
            TombstoneRetention(rule: .newest(max(count, 0)))
        }

        /// Keeps the deletions made less than `age` ago (by the clock of the process that
        /// deleted, in whole seconds) and forgets older ones; `.zero` or less forgets every one.
        public static func age(_ age: Duration) -> TombstoneRetention {
            TombstoneRetention(rule: .age(max(age, .zero)))
        }

        /// Whether it ever forgets a tombstone.
        var forgets: Bool { rule != .forever }

        /// `forever`, `newest(100)` or `age(2592000.0 seconds)`.
        public var description: String {
            switch rule {
            case .forever: "forever"
            case .newest(let count): "newest(\(count))"
            case .age(let age): "age(\(age))"
            }
        }
    }
}
