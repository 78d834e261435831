import ExampleSupport
import Foundation
import Repositories

/// The run: launch, add, remove, a removal the API refuses and the view model rolls back,
/// a relaunch from the UserDefaults copy, then the article's errors as the user sees them.
@MainActor
struct PersonStory {
    let remote: ExampleRemote<Person>
    let suite: PersonDefaults
    /// Picks the names and ages the run adds, the same on every run.
    private let random = SeededRandom(seed: 4)

    /// Runs the story with the options given, then removes the suite unless `--data-dir`.
    static func run(options: ExampleOptions) async throws {
        let suite = try PersonDefaults(options: options)
        let story = PersonStory(
            remote: ExampleRemote(options: options, resource: "people", seed: Person.samples), suite: suite)
        try await withCleanup {
            try await story.tell()
        } cleanup: {
            try suite.close()
        }
        if suite.isTemporary {
            // close() checked that the file synchronize() had seen is gone.
            print("\nRemoved the suite with removePersistentDomain(forName:); its file is gone")
        } else {
            print("\nKept the suite \(suite.suiteName) at \(suite.fileURL.path)")
        }
    }

    private func tell() async throws {
        let network = remote.network.isOnline ? "" : " (offline)"
        print("Person: \(remote.origin)\(network) first, a copy in UserDefaults on this device")
        print("UserDefaults suite \(suite.suiteName), key \"person\"")
        let layer = PersonDataLayer(remote: remote, defaults: suite.defaults)

        Console.heading("This device")
        let stored = try await layer.device.count()
        if stored == 0 {
            try await layer.device.save(contentsOf: Person.samples)
            print(
                "Saved the article's \(Person.samples.count) people in UserDefaults, as an earlier session would have"
            )
        } else {
            print("UserDefaults already holds \(stored) people from an earlier run")
        }
        try suite.synchronize()
        print("The suite's file: \(suite.fileURL.path)")

        let model = ContentViewModel(
            repository: layer.people, makeAge: { [random] in random.next(in: 10...50) })
        let apiAnswered = try await launch(model, layer: layer)
        try await append(model)
        try await remove(model, at: 1, layer: layer)
        if remote.network.isOnline {
            remote.network.goOffline()
            print("\nThe network drops: the API refuses every call from now on")
        }
        try await remove(model, at: 0, layer: layer)
        try await relaunch(showing: model.persons, apiAnswered: apiAnswered)
        try await showErrors(layer.device)
    }

    /// Loads the list; returns whether the API answered (else UserDefaults did).
    private func launch(_ model: ContentViewModel, layer: PersonDataLayer) async throws -> Bool {
        Console.heading("Launch: fetchAllPersons()")
        await model.fetchAllPersons()
        if let message = model.errorMessage { throw StoryFailure(message) }
        let apiAnswered: Bool
        switch layer.apiCalls.last?.outcome {
        case .success:
            try layer.requireMirrored()
            print("The people API answered; UserDefaults now mirrors it")
            apiAnswered = true
        case .failure(let error):
            let reason = (error as? RepositoryError).map { "\($0.code): \($0.reason)" } ?? "\(error)"
            print("The people API failed (\(reason)),")
            print("so this device's UserDefaults copy answered")
            apiAnswered = false
        case nil:
            throw StoryFailure("the launch did not ask the people API")
        }
        print(list(model))
        return apiAnswered
    }

    private func append(_ model: ContentViewModel) async throws {
        let name = "No. \(random.next(in: 10_000...99_999))"
        Console.heading("appendPerson(name: \"\(name)\")")
        await model.appendPerson(name: name)
        if let message = model.errorMessage {
            // Online, a failure may mean the API took the person and UserDefaults did not, so
            // "not added" would not be true: the story stops instead.
            guard !remote.network.isOnline else { throw StoryFailure("adding \(name) failed: \(message)") }
            print("Not added: \(message)")
            print("The list is as it was: \(model.persons.count) people")
        } else {
            print("Added \(model.persons.last?.row ?? name): saved on the API, then in UserDefaults")
            print(list(model))
        }
    }

    private func remove(_ model: ContentViewModel, at offset: Int, layer: PersonDataLayer) async throws {
        let before = model.persons
        guard before.indices.contains(offset) else { throw StoryFailure("no person at offset \(offset)") }
        let person = before[offset]
        Console.heading("removePerson(at: [\(offset)]): \(person.name)")
        await model.removePerson(at: [offset])
        guard let message = model.errorMessage else {
            print("Removed \(person.name) on the API, then in UserDefaults")
            print(list(model))
            return
        }
        print("The view model took \(person.name) off the list at once, then the delete failed:")
        print("  \(message)")
        try layer.requireMirrored()
        guard model.persons == before, let position = model.persons.firstIndex(of: person) else {
            throw StoryFailure(
                "the rollback after the failed removal of \(person.name) changed the list: "
                    + "it was \(before.map(\.row)), it is \(model.persons.map(\.row))")
        }
        print(
            "Rolled back: \(person.name) is back at position \(position + 1); the list is exactly as before")
        print(list(model))
    }

    /// A new screen over a new stack, offline: UserDefaults answers, and must show what the
    /// old screen showed. `apiAnswered` says whether the API confirmed that list this run
    /// (under `--offline` the story wrote it straight into UserDefaults).
    private func relaunch(showing shown: [Person], apiAnswered: Bool) async throws {
        Console.heading("Relaunch, still offline")
        let layer = PersonDataLayer(remote: remote, defaults: suite.defaults)
        let model = ContentViewModel(repository: layer.people)
        await model.fetchAllPersons()
        if let message = model.errorMessage { throw StoryFailure(message) }
        try layer.requireMirrored()
        guard model.persons == shown else {
            throw StoryFailure(
                "UserDefaults answered \(model.persons.map(\.row)), but the screen showed \(shown.map(\.row))"
            )
        }
        if apiAnswered {
            print("UserDefaults answered with what the API confirmed:")
        } else {
            print(
                "UserDefaults answered with this device's own copy (the API could not be reached at launch):")
        }
        print(list(model))
    }

    private func showErrors(_ device: UserDefaultsRepository<Person>) async throws {
        Console.heading("The article's errors, as RepositoryError codes")
        let nothing = UserDefaultsRepository<Person>(key: "person.never-saved", defaults: suite.defaults)
        print(
            "dataNotFound on a first launch -> no error: fetchAll() of an empty key answers \(try await nothing.fetchAll())"
        )

        let stranger = UUID(uuidString: "00000000-0000-4000-8000-000000000099")!
        do {
            _ = try await device.require(id: stranger)
            throw StoryFailure("require(id:) found a person no one saved")
        } catch let error as RepositoryError {
            print("dataNotFound -> \(error.code) from require(id:): \(PersonStoreError(error).message)")
        }

        // An older version of the app stored the age as text: one element no longer decodes.
        let older = Data(
            (#"[{"name":"Naruto","age":17,"id":"00000000-0000-4000-8000-000000000001"},"#
                + #"{"name":"Sasuke","age":"seventeen","id":"00000000-0000-4000-8000-000000000002"}]"#).utf8)
        suite.defaults.set(older, forKey: "person.v1")
        do {
            let people = try await UserDefaultsRepository<Person>(key: "person.v1", defaults: suite.defaults)
                .fetchAll()
            throw StoryFailure("a damaged value decoded into \(people.count) people")
        } catch let error as RepositoryError {
            print("decodingError -> \(error.code): \(PersonStoreError(error).message)")
        }
        suite.defaults.removeObject(forKey: "person.v1")
        print("encodingError -> encodingFailed: cannot happen for Person (a string, an integer, a UUID)")
    }

    private func list(_ model: ContentViewModel) -> String {
        "  " + model.persons.map(\.row).joined(separator: ", ")
    }
}

/// A seeded random number generator shared by the story and the view model's `makeAge`.
@MainActor
final class SeededRandom {
    private var generator: SeededRandomNumberGenerator

    init(seed: UInt64) {
        generator = SeededRandomNumberGenerator(seed: seed)
    }

    /// A number in `range`, the same sequence for the same seed.
    func next(in range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &generator)
    }
}
