import Foundation
import Observation
import Repositories

/// The article's `ContentViewModel`: the people a list shows, and the intents to add and to
/// remove them.
///
/// It knows the store only as `any Repository<Person, UUID>` (the article's
/// `PersonRepository`), so the app hands it the API-and-UserDefaults stack and the tests a
/// fault-injecting double.
///
/// - Adding saves first and shows the person once the save returned.
/// - Removing is optimistic, as in the article: the people leave the list at once, then the
///   delete runs; when it fails they are put back where they were and ``errorMessage`` says
///   why. Unlike the article, which saved the whole array again per removed row, one
///   `delete(ids:)` removes them all; and where the article put back a copy of the old
///   array, the removed people are put back in place, so a person added meanwhile stays.
///   A failed delete is not always a refused one (the API may have deleted them and only
///   this device's copy failed), so the list is then loaded again: it shows what the store
///   holds, and keeps the rollback only when that load fails too.
/// - A load cancelled because the screen went away changes nothing.
@MainActor @Observable
final class ContentViewModel {
    /// The people the list shows, in stored order.
    private(set) var persons: [Person] = []
    /// What went wrong with the last intent, for the screen to show; `nil` after a success.
    private(set) var errorMessage: String?

    @ObservationIgnored private let repository: any Repository<Person, UUID>
    @ObservationIgnored private let makeAge: () -> Int

    /// A view model over `repository`; `makeAge` picks a new person's age (the article's
    /// `Int.random(in: 10...50)`).
    init(repository: any Repository<Person, UUID>, makeAge: @escaping () -> Int = { Int.random(in: 10...50) })
    {
        self.repository = repository
        self.makeAge = makeAge
    }

    /// Loads every person (the article did this in `init`).
    func fetchAllPersons() async {
        do {
            persons = try await repository.fetchAll()
            errorMessage = nil
        } catch let error where error is CancellationError || Task.isCancelled {
            // The screen went away; there is nobody to tell.
        } catch {
            errorMessage = "Could not load the people. \(PersonStoreError(error).message)"
        }
    }

    /// Saves a new person called `name`, then shows them at the end of the list.
    func appendPerson(name: String) async {
        let person = Person(name: name, age: makeAge())
        do {
            try await repository.save(person)
            persons.append(person)
            errorMessage = nil
        } catch {
            errorMessage = "Could not add \(name). \(PersonStoreError(error).message)"
        }
    }

    /// Removes the people at `offsets` from the list at once, then deletes them; when the
    /// delete fails, puts them back in their places (unless the API took the delete and only
    /// this device's copy failed), sets ``errorMessage``, and loads the list again so that it
    /// shows whom the store still holds.
    func removePerson(at offsets: IndexSet) async {
        let removed = persons.enumerated().filter { offsets.contains($0.offset) }
        guard !removed.isEmpty else { return }
        let ids = Set(removed.map(\.element.id))
        persons.removeAll { ids.contains($0.id) }
        do {
            try await repository.delete(ids: removed.map(\.element.id))
            errorMessage = nil
        } catch {
            let names = removed.map(\.element.name).joined(separator: ", ")
            let failure = PersonStoreError(error)
            if case .appliedOnServerOnly = failure {
                // The API deleted them: putting them back would show people it no longer has.
                errorMessage = "Removed \(names). \(failure.message)"
            } else {
                restore(removed)
                errorMessage = "Could not remove \(names). \(failure.message)"
            }
            await reloadAfterFailedRemoval()
        }
    }

    /// Shows what the store holds after a delete failed: the people are back when the API
    /// refused it, and gone when the API deleted them and only this device's copy failed.
    /// When this load fails too, the rolled-back list and the delete's message stay: the
    /// delete's error is the one the user needs, and the rollback is the best guess left.
    private func reloadAfterFailedRemoval() async {
        do {
            persons = try await repository.fetchAll()
        } catch {
            // Kept as described above; the delete's message already says what went wrong.
        }
    }

    /// Puts `removed` back at their former offsets (in ascending order, so each lands where
    /// it was), skipping anyone already back in the list.
    private func restore(_ removed: [(offset: Int, element: Person)]) {
        for (offset, person) in removed where !persons.contains(where: { $0.id == person.id }) {
            persons.insert(person, at: min(offset, persons.count))
        }
    }
}
