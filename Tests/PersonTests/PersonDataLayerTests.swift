import ExampleSupport
import Foundation
import Repositories
import Testing

@testable import Person

/// The data layer's mirror: UserDefaults copies what the API answers, and a copy it cannot
/// take is reported rather than lost.
@Suite struct PersonDataLayerTests {
    let suites = TestSuites()

    @Test func aLoadTheAPIAnsweredIsMirroredIntoUserDefaults() async throws {
        defer { suites.removeAll() }
        let layer = PersonDataLayer(
            api: InMemoryRepository(ContentViewModelTests.people), defaults: suites.make())

        #expect(try await layer.people.fetchAll() == ContentViewModelTests.people)

        try layer.requireMirrored()
        #expect(try await layer.device.fetchAll() == ContentViewModelTests.people)
        #expect(layer.apiCalls.last?.operation == .fetchAll)
    }

    /// UserDefaults holds a value it cannot read, so it cannot take the API's list: the load
    /// still shows the API's answer, and the failure is not lost.
    @Test func aMirrorUserDefaultsCannotTakeIsReported() async throws {
        defer { suites.removeAll() }
        let defaults = suites.make()
        let damaged = Data(#"[{"name":"Naruto","age":"seventeen"}]"#.utf8)
        defaults.set(damaged, forKey: "person")
        let layer = PersonDataLayer(api: InMemoryRepository(ContentViewModelTests.people), defaults: defaults)

        #expect(try await layer.people.fetchAll() == ContentViewModelTests.people)

        let failure = #expect(throws: StoryFailure.self) { try layer.requireMirrored() }
        #expect(
            failure?.description.hasPrefix(
                "The local store UserDefaults (key \"person\") failed behind the API") == true)
        #expect(defaults.data(forKey: "person") == damaged)
        // Reported once: the log is empty afterwards.
        try layer.requireMirrored()
    }
}
