import Foundation
import Synchronization

@testable import Todo

/// Dates for the view model's `now`: each call one minute after the last, so todos sort by
/// creation the way they were added.
final class SteppingDates: Sendable {
    private let minutes = Mutex(0)

    /// The next date.
    func next() -> Date {
        let minute = minutes.withLock { minute in
            defer { minute += 1 }
            return minute
        }
        return Todo.epoch.addingTimeInterval(Double(minute) * 60)
    }
}

extension Todo {
    /// A whole-second date the fixtures count from.
    static let epoch = Date(timeIntervalSince1970: 1_700_000_000)

    /// The article's `MockTodoUserDefaultRepository` answer: one "Mock Todo".
    static let mock = Todo.make(index: 0, text: "Mock Todo")

    /// The todo with an ID fixed by `index`, created `index` minutes after ``epoch``.
    static func make(index: Int, text: String, isDone: Bool = false) -> Todo {
        Todo(
            id: uuid(index), title: text, date: epoch.addingTimeInterval(Double(index) * 60), isDone: isDone)
    }

    /// The conformance suite's entity for `(index, revision)`: the ID from the index, the
    /// text and done flag from the revision.
    static func make(index: Int, revision: Int) -> Todo {
        make(index: index, text: "todo \(index), revision \(revision) ✓", isDone: revision % 2 == 1)
    }

    private static func uuid(_ index: Int) -> UUID {
        let hex = String(index, radix: 16)
        return UUID(
            uuidString: "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex)!
    }
}
