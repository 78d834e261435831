import Foundation
import Repositories

/// Version 1 of the fixture entity: the shape today's fixture files were written with.
struct TodoV1: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var title: String
    var done: Bool
    var created: Date
    var tags: [String]
    var note: String?

    /// The fixtures' entity for `id`, its content following from the ID.
    static func make(_ id: Int, title: String? = nil) -> TodoV1 {
        TodoV1(
            id: id, title: title ?? "todo \(id) — çay ☕️ 𝄞", done: id % 2 == 0,
            created: Date(timeIntervalSince1970: 1_700_000_000 + Double(id) * 86_400.5),
            tags: (0..<(id % 3)).map { "tag\($0)" }, note: id % 3 == 0 ? nil : "note \(id)")
    }
}

/// Version 2: `title` renamed `text`, and `pinned` added.
struct Todo: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var text: String
    var done: Bool
    var created: Date
    var tags: [String]
    var note: String?
    var pinned: Bool

    /// Version 1's todo, upgraded: what the upgrade below must return for it.
    init(upgrading old: TodoV1) {
        self.init(
            id: old.id, text: old.title, done: old.done, created: old.created, tags: old.tags, note: old.note,
            pinned: false)
    }

    init(id: Int, text: String, done: Bool, created: Date, tags: [String], note: String?, pinned: Bool) {
        self.id = id
        self.text = text
        self.done = done
        self.created = created
        self.tags = tags
        self.note = note
        self.pinned = pinned
    }

    /// The app's chain at version 2.
    static func migrations() throws -> Migrations<Todo> {
        try Migrations(.upgrade(from: 1) { (old: TodoV1) in Todo(upgrading: old) })
    }
}

/// Version 3: a priority added to version 2.
struct TodoV3: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var text: String
    var pinned: Bool
    var priority: Int

    /// The app's chain at version 3: each conversion written once.
    static func migrations() throws -> Migrations<TodoV3> {
        try Migrations(
            .upgrade(from: 1) { (old: TodoV1) in Todo(upgrading: old) },
            .upgrade(from: 2) { (old: Todo) in
                TodoV3(id: old.id, text: old.text, pinned: old.pinned, priority: old.done ? 0 : 1)
            })
    }
}
