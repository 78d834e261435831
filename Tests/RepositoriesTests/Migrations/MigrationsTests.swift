import Foundation
import Repositories
import Testing

/// The chain on its own: what it decodes, what it refuses to be made of.
@Suite struct MigrationsTests {
    struct Refused: Error {}

    func encoded<T: Encodable>(_ value: T, _ encoder: JSONEncoder = JSONEncoder()) throws -> Data {
        try encoder.encode(value)
    }

    @Test func noMigrationsIsVersionOne() throws {
        let migrations = Migrations<Todo>()
        #expect(migrations.currentVersion == 1)
        let todo = Todo(upgrading: .make(4))
        #expect(try migrations.decode(encoded(todo), writtenBy: 1, using: JSONDecoder()) == todo)
    }

    @Test func aRecordOfEveryOlderVersionGoesThroughTheRestOfTheChain() throws {
        let migrations = try TodoV3.migrations()
        #expect(migrations.currentVersion == 3)
        let old = TodoV1.make(4)
        let expected = TodoV3(id: 4, text: old.title, pinned: false, priority: 0)
        #expect(try migrations.decode(encoded(old), writtenBy: 1, using: JSONDecoder()) == expected)
        let two = Todo(upgrading: .make(5))
        #expect(
            try migrations.decode(encoded(two), writtenBy: 2, using: JSONDecoder())
                == TodoV3(id: 5, text: two.text, pinned: false, priority: 1))
        #expect(try migrations.decode(encoded(expected), writtenBy: 3, using: JSONDecoder()) == expected)
    }

    @Test func theStoresDecoderReadsTheOldShape() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let old = TodoV1.make(6)
        let data = try encoded(old, encoder)
        #expect(try Todo.migrations().decode(data, writtenBy: 1, using: decoder).created == old.created)
        #expect(throws: DecodingError.self) {
            try Todo.migrations().decode(data, writtenBy: 1, using: JSONDecoder())
        }
    }

    @Test func aNewerVersionIsRefusedWithItsOwnCode() throws {
        let error = #expect(throws: RepositoryError.self) {
            try Todo.migrations().decode(Data("{}".utf8), writtenBy: 3, using: JSONDecoder())
        }
        #expect(error?.code == .writtenByNewerVersion)
        #expect(error?.reason.contains("version 3") == true)
        #expect(error?.reason.contains("up to 2") == true)
    }

    @Test func anUpgradeThatThrowsFailsTheRecord() throws {
        let migrations = try Migrations<Todo>(.upgrade(from: 1) { (_: TodoV1) -> Todo in throw Refused() })
        #expect(throws: Refused.self) {
            try migrations.decode(encoded(TodoV1.make(1)), writtenBy: 1, using: JSONDecoder())
        }
    }

    @Test func aGapIsRefusedNamingTheMissingVersion() {
        let error = #expect(throws: RepositoryError.self) {
            try Migrations<TodoV3>(
                .upgrade(from: 2) { (old: Todo) in TodoV3(id: old.id, text: "", pinned: false, priority: 0) })
        }
        #expect(error?.code == .rejected)
        #expect(error?.reason.contains("from version 1 is missing") == true)
    }

    @Test func aVersionTwiceIsRefused() {
        let error = #expect(throws: RepositoryError.self) {
            try Migrations<Todo>(
                .upgrade(from: 1) { (old: TodoV1) in Todo(upgrading: old) },
                .upgrade(from: 1) { (old: TodoV1) in Todo(upgrading: old) })
        }
        #expect(error?.reason.contains("version 1 has two upgrades") == true)
    }

    @Test func anUpgradeMustReadWhatTheOneBeforeReturns() {
        let error = #expect(throws: RepositoryError.self) {
            try Migrations<TodoV3>(
                .upgrade(from: 1) { (old: TodoV1) in old },
                .upgrade(from: 2) { (old: Todo) in TodoV3(id: old.id, text: "", pinned: false, priority: 0) })
        }
        #expect(error?.reason.contains("returns TodoV1") == true)
        #expect(error?.reason.contains("reads Todo") == true)
    }

    @Test func theLastUpgradeMustReturnTheEntity() {
        let error = #expect(throws: RepositoryError.self) {
            try Migrations<TodoV3>(.upgrade(from: 1) { (old: TodoV1) in Todo(upgrading: old) })
        }
        #expect(error?.reason.contains("returns Todo, not TodoV3") == true)
    }
}
