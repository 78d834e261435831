import Foundation
import Repositories

/// The entity of the migration tests in its three versions, shared by the file, SQLite and
/// UserDefaults tests and the fixtures they read (each test module names them with
/// typealiases, so a test reads `TodoV1`, `Todo`, `TodoV3`).
public enum MigrationFixtures {
    /// Version 1 of the fixture entity: the shape today's fixture files were written with.
    public struct TodoV1: Codable, Identifiable, Sendable, Equatable {
        /// The ID.
        public var id: Int
        /// The text, called `title` in version 1.
        public var title: String
        /// Whether it is done.
        public var done: Bool
        /// When it was made.
        public var created: Date
        /// Its tags.
        public var tags: [String]
        /// A note, if any.
        public var note: String?

        /// A todo of version 1.
        public init(id: Int, title: String, done: Bool, created: Date, tags: [String], note: String?) {
            self.id = id
            self.title = title
            self.done = done
            self.created = created
            self.tags = tags
            self.note = note
        }

        /// The fixtures' entity for `id`, its content following from the ID.
        public static func make(_ id: Int, title: String? = nil) -> TodoV1 {
            TodoV1(
                id: id, title: title ?? "todo \(id) — çay ☕️ 𝄞", done: id % 2 == 0,
                created: Date(timeIntervalSince1970: 1_700_000_000 + Double(id) * 86_400.5),
                tags: (0..<(id % 3)).map { "tag\($0)" }, note: id % 3 == 0 ? nil : "note \(id)")
        }
    }

    /// Version 2: `title` renamed `text`, and `pinned` added.
    public struct Todo: Codable, Identifiable, Sendable, Equatable {
        /// The ID.
        public var id: Int
        /// The text, `title` until version 2.
        public var text: String
        /// Whether it is done.
        public var done: Bool
        /// When it was made.
        public var created: Date
        /// Its tags.
        public var tags: [String]
        /// A note, if any.
        public var note: String?
        /// Whether it is pinned (new in version 2).
        public var pinned: Bool

        /// Version 1's todo, upgraded: what the upgrade below must return for it.
        public init(upgrading old: TodoV1) {
            self.init(
                id: old.id, text: old.title, done: old.done, created: old.created, tags: old.tags,
                note: old.note,
                pinned: false)
        }

        /// A todo of version 2.
        public init(
            id: Int, text: String, done: Bool, created: Date, tags: [String], note: String?, pinned: Bool
        ) {
            self.id = id
            self.text = text
            self.done = done
            self.created = created
            self.tags = tags
            self.note = note
            self.pinned = pinned
        }

        /// The app's chain at version 2.
        public static func migrations() throws -> Migrations<Todo> {
            try Migrations(.upgrade(from: 1) { (old: TodoV1) in Todo(upgrading: old) })
        }
    }

    /// Version 3: a priority added to version 2.
    public struct TodoV3: Codable, Identifiable, Sendable, Equatable {
        /// The ID.
        public var id: Int
        /// The text, `title` until version 2.
        public var text: String
        /// Whether it is pinned (new in version 2).
        public var pinned: Bool
        /// Its priority (new in version 3).
        public var priority: Int

        /// A todo of version 3.
        public init(id: Int, text: String, pinned: Bool, priority: Int) {
            self.id = id
            self.text = text
            self.pinned = pinned
            self.priority = priority
        }

        /// The app's chain at version 3: each conversion written once.
        public static func migrations() throws -> Migrations<TodoV3> {
            try Migrations(
                .upgrade(from: 1) { (old: TodoV1) in Todo(upgrading: old) },
                .upgrade(from: 2) { (old: Todo) in
                    TodoV3(id: old.id, text: old.text, pinned: old.pinned, priority: old.done ? 0 : 1)
                })
        }
    }
}
