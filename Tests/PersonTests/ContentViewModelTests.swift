import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@testable import Person

/// The view model against doubles: the optimistic removal and its rollback, adding, loading.
@MainActor
@Suite struct ContentViewModelTests {
    nonisolated static let people = [
        Person.make(index: 1, name: "Naruto"), Person.make(index: 2, name: "Sasuke"),
        Person.make(index: 3, name: "Sakura"), Person.make(index: 4, name: "Kakashi", age: 31),
    ]

    private let offline = RepositoryError.unavailable("The people API cannot be reached (test)")

    /// A view model over `store`, loaded, whose new people are 42.
    private func loaded(_ store: some Repository<Person, UUID>) async -> ContentViewModel {
        let model = ContentViewModel(repository: store, makeAge: { 42 })
        await model.fetchAllPersons()
        return model
    }

    @Test func loadsThePeopleInStoredOrder() async {
        let model = await loaded(InMemoryRepository(Self.people))
        #expect(model.persons == Self.people)
        #expect(model.errorMessage == nil)
    }

    @Test func aFailedLoadSaysWhichElementIsDamaged() async {
        var store = AnyRepository<Person, UUID>.unimplemented("people")
        store.onFetchAll = {
            throw RepositoryError.decodingFailed(
                record: "element 2 of key \"person\"", underlying: CocoaError(.coderReadCorrupt))
        }
        let model = await loaded(store)

        #expect(model.persons.isEmpty)
        #expect(
            model.errorMessage
                == "Could not load the people. The saved people could not be read: element 2 of key \"person\" is damaged. Nothing was changed."
        )
    }

    @Test func aCancelledLoadChangesNothing() async {
        let store = FaultInjectingRepository(InMemoryRepository(Self.people))
        let model = await loaded(store)
        store.failNext(of: .fetchAll, with: CancellationError())

        await model.fetchAllPersons()

        #expect(store.injectedFaultCount == 1)
        #expect(model.errorMessage == nil)
        #expect(model.persons == Self.people)
    }

    /// A store may throw its own error when its task is cancelled (the remote-first stack
    /// rethrows the API's): the load is still silent.
    @Test func aLoadWhoseTaskWasCancelledIsSilentWhateverTheStoreThrew() async {
        let gate = Gate()
        let error = offline
        var store = AnyRepository<Person, UUID>.unimplemented("people")
        store.onFetchAll = {
            await gate.pass()
            throw error
        }
        let model = ContentViewModel(repository: store, makeAge: { 42 })

        let load = Task { await model.fetchAllPersons() }
        await gate.waitForArrival()
        load.cancel()
        gate.open()
        await load.value

        #expect(model.errorMessage == nil)
        #expect(model.persons.isEmpty)
    }

    @Test func appendSavesThenShowsThePerson() async throws {
        let store = SpyRepository(InMemoryRepository(Self.people))
        let model = await loaded(store)
        store.reset()

        await model.appendPerson(name: "No. 12345")

        let added = try #require(model.persons.last)
        #expect(added.name == "No. 12345" && added.age == 42)
        #expect(model.persons == Self.people + [added])
        #expect(store.operations == [.save])
        #expect(store.calls[0].entities == [added])
        #expect(try await store.base.fetchAll() == Self.people + [added])
    }

    @Test func aFailedAppendLeavesTheListAndSaysWhy() async throws {
        let store = FaultInjectingRepository(InMemoryRepository(Self.people))
        let model = await loaded(store)
        store.failNext(of: .save, with: offline)

        await model.appendPerson(name: "No. 12345")

        #expect(model.persons == Self.people)
        #expect(
            model.errorMessage
                == "Could not add No. 12345. The people API cannot be reached (test). Try again when you are back online."
        )
        #expect(try await store.base.fetchAll() == Self.people)
    }

    @Test func removeDeletesAndKeepsTheOthersInOrder() async throws {
        let store = SpyRepository(InMemoryRepository(Self.people))
        let model = await loaded(store)
        store.reset()

        await model.removePerson(at: [1])

        let rest = [Self.people[0], Self.people[2], Self.people[3]]
        #expect(model.persons == rest)
        #expect(model.errorMessage == nil)
        #expect(store.operations == [.deleteIDs])
        #expect(store.calls[0].ids == [Self.people[1].id])
        #expect(try await store.base.fetchAll() == rest)
    }

    @Test func aFailedRemoveRollsBackToTheSamePlace() async throws {
        let store = FaultInjectingRepository(InMemoryRepository(Self.people))
        let model = await loaded(store)
        store.failNext(of: .deleteIDs, with: offline)

        await model.removePerson(at: [1])

        #expect(model.persons == Self.people)
        #expect(model.persons.firstIndex(of: Self.people[1]) == 1)
        #expect(
            model.errorMessage
                == "Could not remove Sasuke. The people API cannot be reached (test). Try again when you are back online."
        )
        #expect(store.injectedFaultCount == 1)
        #expect(try await store.base.fetchAll() == Self.people)
    }

    @Test func removalIsOptimisticThenRolledBack() async throws {
        let clock = ManualClock()
        let store = FaultInjectingRepository(InMemoryRepository(Self.people), clock: clock)
        let model = await loaded(store)
        store.addLatency(.seconds(1), to: [.deleteIDs])
        store.failNext(of: .deleteIDs, with: offline)

        let removal = Task { await model.removePerson(at: [0]) }
        await clock.waitForSleepers(count: 1)
        // The delete is in flight: the list already shows Naruto gone.
        #expect(model.persons == Array(Self.people.dropFirst()))
        #expect(model.errorMessage == nil)

        await clock.advance(by: .seconds(1))
        await removal.value

        #expect(model.persons == Self.people)
        #expect(model.errorMessage?.hasPrefix("Could not remove Naruto.") == true)
    }

    @Test func aFailedRemovalOfSeveralPutsEachBackInPlace() async throws {
        let store = FaultInjectingRepository(InMemoryRepository(Self.people))
        let model = await loaded(store)
        store.failNext(of: .deleteIDs, with: offline)

        await model.removePerson(at: [0, 2, 3])

        #expect(model.persons == Self.people)
        #expect(model.errorMessage?.hasPrefix("Could not remove Naruto, Sakura, Kakashi.") == true)
    }

    @Test func aPersonAddedDuringAFailedRemovalIsKept() async throws {
        let clock = ManualClock()
        let store = FaultInjectingRepository(InMemoryRepository(Self.people), clock: clock)
        let model = await loaded(store)
        store.addLatency(.seconds(1), to: [.deleteIDs])
        store.failNext(of: .deleteIDs, with: offline)

        let removal = Task { await model.removePerson(at: [1]) }
        await clock.waitForSleepers(count: 1)
        await model.appendPerson(name: "Hinata")
        await clock.advance(by: .seconds(1))
        await removal.value

        #expect(model.persons.map(\.name) == ["Naruto", "Sasuke", "Sakura", "Kakashi", "Hinata"])
    }

    @Test func aSuccessClearsThePreviousError() async throws {
        let store = FaultInjectingRepository(InMemoryRepository(Self.people))
        let model = await loaded(store)
        store.failNext(of: .deleteIDs, with: offline)

        await model.removePerson(at: [0])
        #expect(model.errorMessage != nil)
        await model.removePerson(at: [0])

        #expect(model.errorMessage == nil)
        #expect(model.persons == Array(Self.people.dropFirst()))
    }

    @Test func removingAnOffsetPastTheEndDoesNothing() async {
        var store = AnyRepository<Person, UUID>.unimplemented("people")
        store.onFetchAll = { Self.people }
        let model = await loaded(store)

        await model.removePerson(at: [7])

        #expect(model.persons == Self.people)
        #expect(model.errorMessage == nil)
    }

    /// The data layer's rule the rollback relies on: when the API refuses the delete, the
    /// UserDefaults copy still holds the person, so the restored list is the truth.
    @Test func withTheRealStackARefusedDeleteLeavesUserDefaultsAlone() async throws {
        let suites = TestSuites()
        defer { suites.removeAll() }
        let device = UserDefaultsRepository<Person>(key: "person", defaults: suites.make())
        let api = FaultInjectingRepository(InMemoryRepository(Self.people))
        let model = await loaded(api.fallback(to: device))
        #expect(try await device.fetchAll() == Self.people)
        api.failNext(of: .deleteIDs, with: offline)

        await model.removePerson(at: [2])

        #expect(model.persons == Self.people)
        #expect(model.errorMessage?.hasPrefix("Could not remove Sakura.") == true)
        #expect(try await device.fetchAll() == Self.people)
        #expect(try await api.base.fetchAll() == Self.people)
    }

    /// A delete the API took but this device's copy could not: the stack throws, and putting
    /// the person back would show someone the API no longer has. The reload shows the truth.
    @Test func aDeleteTheAPITookButTheDeviceCouldNotLeavesThePersonOffTheList() async throws {
        let api = InMemoryRepository(Self.people)
        let device = FaultInjectingRepository(InMemoryRepository<Person>())
        let model = await loaded(api.fallback(to: device))
        #expect(try await device.base.fetchAll() == Self.people)
        device.failNext(of: .deleteIDs, with: RepositoryError.unavailable("The disk is full (test)"))

        await model.removePerson(at: [2])

        let rest = [Self.people[0], Self.people[1], Self.people[3]]
        #expect(device.injectedFaultCount == 1)
        #expect(try await api.fetchAll() == rest)
        #expect(model.persons == rest)
        #expect(model.errorMessage?.hasPrefix("Removed Sakura. The people API has the change") == true)
        #expect(model.errorMessage?.contains("The disk is full (test)") == true)
    }
}
