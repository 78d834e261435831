import Foundation

/// An entity with an `Int` ID, as the articles' todo APIs serve it.
struct Todo: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
    var done = false

    static let milk = Todo(id: 1, title: "Buy milk")
    static let bread = Todo(id: 2, title: "Buy bread")
    static let eggs = Todo(id: 3, title: "Buy eggs")

    /// Todos 1 through `count`.
    static func numbered(_ count: Int) -> [Todo] {
        (1...count).map { Todo(id: $0, title: "Todo \($0)") }
    }
}

/// An entity with a `String` ID.
struct Label: Codable, Identifiable, Sendable, Equatable {
    var id: String
    var color: String
}

/// An entity with a `UUID` ID, camel-case properties and a date, for the coders' strategies.
struct Reminder: Codable, Identifiable, Sendable, Equatable {
    var id: UUID
    var listName: String
    var dueDate: Date
}
