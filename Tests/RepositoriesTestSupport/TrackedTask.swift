import Foundation

/// A task as the FastAPI fixture's `/tasks/` keeps it, whose content names the change that
/// wrote it: a server's log of applications can then be counted per change, not per key,
/// however the server rewrites what it stores (its dates, its `updated_at`).
///
/// The crash fixture writes `make(number, change:)` with a `change` number no other change
/// has, so "task 12 change 480" is applied once or was applied twice, whatever it came under.
public struct TrackedTask: Codable, Identifiable, Sendable, Equatable {
    /// A UUID made from the task's number (``id(_:)``).
    public var id: UUID
    /// `"task N change C ✓"`: the number and the change that wrote it.
    public var title: String
    /// Follows from the change.
    public var rank: Int
    /// Follows from the change.
    public var done: Bool
    /// A date with microseconds (a server that keeps milliseconds changes it), or `nil`,
    /// following from the change.
    public var dueAt: Date?
    /// The server's stamp of its last write; a change keeps the one it was made on.
    public var updatedAt: Date?

    /// The UUID of task `number`.
    public static func id(_ number: Int) -> UUID {
        let hex = String(number, radix: 16)
        let padded = String(repeating: "0", count: max(0, 12 - hex.count)) + hex
        return UUID(uuidString: "7a5c0000-0000-4000-8000-\(padded)") ?? UUID()
    }

    /// The task `number` as `change` writes it, keeping `updatedAt` (the stamp of the
    /// version the change was made on, as an app edits what it read).
    public static func make(_ number: Int, change: Int, updatedAt: Date? = nil) -> TrackedTask {
        TrackedTask(
            id: id(number), title: "task \(number) change \(change) ✓", rank: change % 7,
            done: change % 2 == 1,
            dueAt: change % 5 == 4
                ? nil : Date(timeIntervalSince1970: 1_750_000_000 + Double(change) + 0.123_456),
            updatedAt: updatedAt)
    }

    /// The task's number, read back from its ID.
    public var number: Int? {
        Self.number(of: id.uuidString)
    }

    /// The change that wrote the task, read back from its title.
    public var change: Int? {
        Self.change(in: title)
    }

    /// The number of the task whose ID `id` writes (in either case), or `nil` when it is
    /// not a tracked task's.
    public static func number(of id: String) -> Int? {
        guard let uuid = UUID(uuidString: id), let number = Int(uuid.uuidString.suffix(12), radix: 16),
            Self.id(number) == uuid
        else { return nil }
        return number
    }

    /// The change a tracked task's `title` names, or `nil` when it names none.
    public static func change(in title: String) -> Int? {
        let words = title.split(separator: " ")
        guard words.count >= 4, words[0] == "task", words[2] == "change" else { return nil }
        return Int(words[3])
    }

    /// Whether `self`, as a server stored it, is what `make(number, change:)` sent, up to what
    /// a server may rewrite: the due date kept to the millisecond (a truncated or rounded
    /// copy, within one millisecond), and `updatedAt`, which the server stamps.
    public func isStoredCopy(of sent: TrackedTask) -> Bool {
        guard id == sent.id, title == sent.title, rank == sent.rank, done == sent.done else { return false }
        switch (dueAt, sent.dueAt) {
        case (nil, nil): return true
        case (let stored?, let original?): return abs(stored.timeIntervalSince(original)) < 0.001
        default: return false
        }
    }
}
