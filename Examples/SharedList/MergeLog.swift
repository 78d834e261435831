import Synchronization

/// The merges a device's conflict policy ran, in order, so the story can show each one:
/// the version the edit was made on, the device's, the API's, and what the merge made.
final class MergeLog: Sendable {
    /// One merge.
    struct Entry: Sendable, Equatable {
        /// The device whose sync ran the merge.
        var device: String
        /// The version the device's edit was made on.
        var base: ShoppingItem?
        /// The device's version.
        var mine: ShoppingItem
        /// The API's version, changed by the other device.
        var theirs: ShoppingItem
        /// What was sent and kept.
        var merged: ShoppingItem
    }

    private let entries = Mutex<[Entry]>([])

    /// An empty log.
    init() {}

    /// Adds `entry`.
    func record(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
    }

    /// Every merge so far, in order.
    var all: [Entry] { entries.withLock { $0 } }
}
