import Foundation
import Synchronization

@testable import Person

extension Person {
    /// The person with an ID fixed by `index`.
    static func make(index: Int, name: String, age: Int = 17) -> Person {
        let hex = String(index, radix: 16)
        let id = UUID(
            uuidString: "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex)!
        return Person(id: id, name: name, age: age)
    }

    /// The conformance suite's entity for `(index, revision)`: the ID from the index, the
    /// age from the revision.
    static func make(index: Int, revision: Int) -> Person {
        make(index: index, name: "人 \(index) ✓", age: revision)
    }
}

/// Fresh UserDefaults suites for one test, each removed (values and file) by ``removeAll()``.
final class TestSuites: Sendable {
    private let names = Mutex<[String]>([])

    /// A new, empty suite.
    func make() -> UserDefaults {
        let name = "RepositoriesPersonTests.\(UUID().uuidString)"
        names.withLock { $0.append(name) }
        return UserDefaults(suiteName: name)!
    }

    /// Removes every suite made so far.
    func removeAll() {
        for name in names.withLock({ $0 }) {
            UserDefaults(suiteName: name)?.removePersistentDomain(forName: name)
        }
    }
}
