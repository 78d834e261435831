import Foundation
import Repositories
import Testing

@testable import Person

/// The article's typed errors, as `RepositoryError` codes from the real
/// `UserDefaultsRepository`, and the sentence the user sees for each.
@Suite struct PersonStoreErrorTests {
    let suites = TestSuites()

    private func failure(of body: () async throws -> Void) async -> (any Error)? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test func nothingSavedYetIsAnEmptyListNotDataNotFound() async throws {
        defer { suites.removeAll() }
        let people = UserDefaultsRepository<Person>(key: "person", defaults: suites.make())
        #expect(try await people.fetchAll().isEmpty)
    }

    @Test func requireOfAnAbsentPersonIsDataNotFound() async throws {
        defer { suites.removeAll() }
        let people = UserDefaultsRepository<Person>(key: "person", defaults: suites.make())
        try await people.save(Person.make(index: 1, name: "Naruto"))
        let stranger = Person.make(index: 99, name: "nobody").id

        let error = try #require(await failure { _ = try await people.require(id: stranger) })

        #expect((error as? RepositoryError)?.code == .notFound)
        #expect(PersonStoreError(error) == .dataNotFound(id: stranger.uuidString))
        #expect(
            PersonStoreError(error).message == "That person is no longer saved (id \(stranger.uuidString)).")
    }

    @Test func aDamagedElementIsADecodingErrorNamingIt() async throws {
        defer { suites.removeAll() }
        let defaults = suites.make()
        let stored =
            #"[{"name":"Naruto","age":17,"id":"00000000-0000-4000-8000-000000000001"},"#
            + #"{"name":"Sasuke","age":"seventeen","id":"00000000-0000-4000-8000-000000000002"}]"#
        defaults.set(Data(stored.utf8), forKey: "person")
        let people = UserDefaultsRepository<Person>(key: "person", defaults: defaults)

        let error = try #require(await failure { _ = try await people.fetchAll() })

        #expect((error as? RepositoryError)?.code == .decodingFailed)
        #expect(PersonStoreError(error) == .decodingError(record: "element 1 of key \"person\""))
        #expect(
            PersonStoreError(error).message
                == "The saved people could not be read: element 1 of key \"person\" is damaged. Nothing was changed."
        )
    }

    @Test func aValueThatIsNotDataIsADecodingErrorNamingTheKey() async throws {
        defer { suites.removeAll() }
        let defaults = suites.make()
        defaults.set(["Naruto", "Sasuke"], forKey: "person")
        let people = UserDefaultsRepository<Person>(key: "person", defaults: defaults)

        let error = try #require(await failure { _ = try await people.fetchAll() })

        #expect(PersonStoreError(error) == .decodingError(record: "the value under key \"person\""))
    }

    @Test func anEntityThatCannotBeEncodedIsAnEncodingError() {
        let error = RepositoryError.encodingFailed(id: "7", underlying: CocoaError(.coderInvalidValue))
        #expect(PersonStoreError(error) == .encodingError(id: "7"))
        #expect(PersonStoreError(error).message == "The person 7 could not be saved, so nothing was written.")
    }

    @Test(arguments: [
        RepositoryError.unavailable("The people API cannot be reached"),
        RepositoryError.timedOut(after: .seconds(5), operation: "fetchAll()"),
        RepositoryError.circuitOpen(retryAfter: .seconds(30)),
    ])
    func anUnreachableAPIIsUnreachable(error: RepositoryError) {
        #expect(PersonStoreError(error) == .unreachable(reason: error.reason))
        #expect(PersonStoreError(error).message == "\(error.reason). Try again when you are back online.")
    }

    @Test func anyOtherFailureIsDescribedAsItIs() {
        let locked = RepositoryError.locked(location: "people.store")
        #expect(PersonStoreError(locked) == .other(locked.description))
        #expect(PersonStoreError(CocoaError(.fileNoSuchFile)) == .other("\(CocoaError(.fileNoSuchFile))"))
    }
}
