import Foundation
import Repositories

/// The article's `Person`: a name, an age, and a UUID made when the person is.
struct Person: Codable, Identifiable, Hashable, Sendable {
    /// The person's name.
    let name: String
    /// The person's age.
    var age: Int
    /// Identifies the person in UserDefaults and on the API.
    let id: UUID

    /// The article's initializer: a new person with a fresh ID.
    init(name: String, age: Int) {
        self.init(id: UUID(), name: name, age: age)
    }

    /// A person with a known ID (for sample data and tests).
    init(id: UUID, name: String, age: Int) {
        self.name = name
        self.age = age
        self.id = id
    }

    /// The row the article's list shows: `Naruto (17)`.
    var row: String { "\(name) (\(age))" }

    /// The article's `MockUserDefaultsPersonRepository` list, with fixed IDs so a run prints
    /// the same thing every time.
    static let samples = [
        Person(id: sampleID(1), name: "Naruto", age: 17),
        Person(id: sampleID(2), name: "Sasuke", age: 17),
        Person(id: sampleID(3), name: "Sakura", age: 17),
        Person(id: sampleID(4), name: "Kakashi", age: 31),
    ]

    private static func sampleID(_ number: Int) -> UUID {
        UUID(uuidString: "00000000-0000-4000-8000-00000000000\(number)")!
    }
}

extension Person: QueryableEntity {
    /// A list of people can be filtered and sorted by name and age where they are kept.
    static let queryableFields: [QueryableField<Person>] = [
        QueryableField(\.name, name: "name"),
        QueryableField(\.age, name: "age"),
    ]
}
