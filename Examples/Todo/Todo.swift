import Foundation
import Repositories

/// One entry of the list: the article's `Todo(todo:date:)` (its text now called `title`), with the ID and the done flag
/// its two parallel UserDefaults arrays could not keep.
///
/// The article found a todo to update or delete by comparing its text and its date, so two
/// todos with the same text were one; here the ``id`` tells them apart.
///
/// This is version 2 of the entity: version 1 (``TodoV1``, what the previous release wrote)
/// called the text `todo` and had no ``pinned``. ``migrations()`` upgrades what it wrote.
struct Todo: Codable, Identifiable, Sendable, Hashable {
    /// Identifies the todo in the store and on the API.
    var id: UUID
    /// What there is to do (`todo` in version 1, the article's name).
    var title: String
    /// When the todo was created; the list sorts by it.
    var date: Date
    /// Whether it is done.
    var isDone: Bool
    /// Whether it is pinned (new in version 2).
    var pinned: Bool

    /// A todo, open and not pinned unless the arguments say otherwise.
    init(id: UUID = UUID(), title: String, date: Date, isDone: Bool = false, pinned: Bool = false) {
        self.id = id
        self.title = title
        self.date = date
        self.isDone = isDone
        self.pinned = pinned
    }

    /// The todo as a line of the list: `[x] Buy milk`, with a pin when it is pinned.
    var line: String { "\(isDone ? "[x]" : "[ ]") \(title)\(pinned ? " (pinned)" : "")" }
}

extension Todo: QueryableEntity {
    /// What the list filters and sorts by: done or not, and the creation date.
    static let queryableFields: [QueryableField<Todo>] = [
        QueryableField(\.title, name: "title"),
        QueryableField(\.date, name: "date"),
        QueryableField(\.isDone, name: "is_done"),
        QueryableField(\.pinned, name: "pinned"),
    ]
}
