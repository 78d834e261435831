import ExampleSupport
import Foundation
import Repositories
import Synchronization

/// The data layer: the people API first, this device's UserDefaults copy beside it.
///
/// `api.fallback(to: device)`: reads go to the API and are mirrored into UserDefaults, which
/// answers when the API cannot be reached; writes go to the API, then to UserDefaults, and a
/// failed API write leaves UserDefaults as it was. When the API refuses a delete, the person
/// is therefore still stored everywhere and the view model's rollback shows the truth. A
/// delete can also fail the other way: the API accepts it and UserDefaults cannot take it
/// (the stack then throws too). The rollback would then show a person the API no longer
/// has, which is why the view model reloads the list after a failed delete.
///
/// A mirror that fails during a read does not fail the read (the API's answer is still
/// shown); it is collected in ``mirrorFailures``, and ``requireMirrored()`` turns it into an
/// error before anyone claims that UserDefaults mirrors the API.
struct PersonDataLayer {
    /// This device's copy: the article's store, the collection as one JSON value under "person".
    let device: UserDefaultsRepository<Person>
    /// What the view model is given.
    let people: any Repository<Person, UUID>
    /// The calls that reached the API layer, so the run can say which tier answered.
    let apiCalls: APICallLog
    /// What UserDefaults could not mirror.
    let mirrorFailures: MirrorFailures

    /// The stack over `remote` and the `defaults` suite.
    init(remote: ExampleRemote<Person>, defaults: UserDefaults) {
        self.init(api: remote.repository, defaults: defaults)
    }

    /// The stack over `api` and the `defaults` suite.
    init(api: some Repository<Person, UUID>, defaults: UserDefaults) {
        let device = UserDefaultsRepository<Person>(key: "person", defaults: defaults)
        let apiCalls = APICallLog()
        let mirrorFailures = MirrorFailures()
        self.device = device
        self.apiCalls = apiCalls
        self.mirrorFailures = mirrorFailures
        people =
            api
            .instrumented(label: "the people API") { apiCalls.record($0) }
            .fallback(to: device, onTierFailure: mirrorFailures.record)
    }

    /// Checks that UserDefaults took every copy handed to it so far, and forgets the failures.
    ///
    /// - Throws: ``StoryFailure`` naming what UserDefaults could not do; the screen's list
    ///   came from the API, but this device's copy is out of date.
    func requireMirrored() throws {
        try mirrorFailures.check("UserDefaults (key \"person\")")
    }
}

/// The API calls a ``PersonDataLayer`` made, as the `instrumented` decorator reported them.
final class APICallLog: Sendable {
    private let events = Mutex<[RepositoryEvent]>([])

    /// Adds `event`.
    func record(_ event: RepositoryEvent) {
        events.withLock { $0.append(event) }
    }

    /// The latest call.
    var last: RepositoryEvent? { events.withLock { $0.last } }
}
