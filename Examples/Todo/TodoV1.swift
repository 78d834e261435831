import Foundation
import Repositories

/// Version 1 of ``Todo``: the shape the previous release wrote to `todos.journal`, kept for
/// as long as devices may hold a file it wrote. It is only ever decoded by the upgrade (and,
/// in the story, used to write the file that release left behind).
struct TodoV1: Codable, Identifiable, Sendable, Hashable {
    /// Identifies the todo.
    var id: UUID
    /// What there is to do: renamed `title` in version 2.
    var todo: String
    /// When the todo was created.
    var date: Date
    /// Whether it is done.
    var isDone: Bool

    /// The todo as the previous release listed it: `[x] Buy milk`.
    var line: String { "\(isDone ? "[x]" : "[ ]") \(todo)" }
}

extension Todo {
    /// Version 1's todo, upgraded: `todo` becomes ``title``, and it is not pinned.
    init(upgrading old: TodoV1) {
        self.init(id: old.id, title: old.todo, date: old.date, isDone: old.isDone, pinned: false)
    }

    /// The entity's versions: 2, with the upgrade from what version 1 wrote.
    ///
    /// - Throws: `rejected` if the chain were broken (it is checked when made).
    static func migrations() throws -> Migrations<Todo> {
        try Migrations(.upgrade(from: 1) { (old: TodoV1) in Todo(upgrading: old) })
    }
}
