import Foundation

/// One entry of the list: the article's `Todo(todo:date:)`, with the ID and the done flag
/// its two parallel UserDefaults arrays could not keep.
///
/// The article found a todo to update or delete by comparing its text and its date, so two
/// todos with the same text were one; here the ``id`` tells them apart.
struct Todo: Codable, Identifiable, Sendable, Hashable {
    /// Identifies the todo in the store and on the API.
    var id: UUID
    /// What there is to do (the article's name for the text).
    var todo: String
    /// When the todo was created; the list sorts by it.
    var date: Date
    /// Whether it is done.
    var isDone: Bool

    /// A todo, open unless `isDone` says otherwise.
    init(id: UUID = UUID(), todo: String, date: Date, isDone: Bool = false) {
        self.id = id
        self.todo = todo
        self.date = date
        self.isDone = isDone
    }

    /// The todo as a line of the list: `[x] Buy milk`.
    var line: String { "\(isDone ? "[x]" : "[ ]") \(todo)" }
}
