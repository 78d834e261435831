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

/// A note whose ID the server assigns, with the timestamp it stamps: the real back-ends'
/// `/notes/`.
struct Memo: Codable, Identifiable, Sendable, Equatable {
    /// 0 until the server assigns one.
    var id: Int
    var title: String
    var done = false
    /// Set by the server.
    var createdAt: Date?

    /// A memo the server has not seen: no ID yet.
    static func draft(_ title: String) -> Memo { Memo(id: 0, title: title) }
}

/// A task whose UUID the client chooses: the real back-ends' `/tasks/`, and the entity the
/// conformance suite runs over them.
///
/// It writes a `nil` due date as `null` rather than leaving the key out: Django REST
/// Framework's `PUT` keeps the stored value of a field the body does not name.
struct Chore: Codable, Identifiable, Sendable, Equatable {
    var id: UUID
    var title: String
    var rank: Int
    var done: Bool
    var dueAt: Date?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(rank, forKey: .rank)
        try container.encode(done, forKey: .done)
        try container.encode(dueAt, forKey: .dueAt)
    }

    /// The chore with ID `index` at `revision`, for `RepositoryConformance(makeEntity:)`.
    @Sendable static func make(index: Int, revision: Int) -> Chore {
        let suffix = String(index, radix: 16)
        let id = UUID(
            uuidString: "0b8e7c4e-0000-4000-8000-" + String(repeating: "0", count: 12 - suffix.count) + suffix
        )
        return Chore(
            id: id ?? UUID(),
            title: "Chore №\(index) «r\(revision)» — 東京 🚀 e\u{301} \"quoted\"",
            rank: (index * 7 + revision) % 5,
            done: revision % 2 == 1,
            dueAt: revision % 3 == 2
                ? nil : Date(timeIntervalSince1970: 1_700_000_000 + Double(index * 1_000 + revision)))
    }
}

/// A task as a careless client sends it: the rank and the due date as free text, which the
/// real back-ends' validation refuses field by field.
struct CarelessChore: Codable, Identifiable, Sendable {
    var id: UUID
    var title: String
    var rank: String
    var dueAt: String

    /// A chore whose `rank` and `dueAt` no server takes.
    static let refused = CarelessChore(
        id: UUID(), title: "Water the plants", rank: "high", dueAt: "next Tuesday")
}
