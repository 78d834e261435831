import ExampleSupport
import Foundation
import Repositories
import Synchronization

/// The data layer: the people API first, this device's UserDefaults copy beside it.
///
/// `api.fallback(to: device)`: reads go to the API and are mirrored into UserDefaults, which
/// answers when the API cannot be reached; writes go to the API, then to UserDefaults, and a
/// failed API write leaves UserDefaults as it was. That last rule is what the view model's
/// rollback relies on: when the API refuses a delete, the person is still stored everywhere,
/// so putting them back in the list is the truth.
struct PersonDataLayer {
    /// This device's copy: the article's store, the collection as one JSON value under "person".
    let device: UserDefaultsRepository<Person>
    /// What the view model is given.
    let people: any Repository<Person, UUID>
    /// The calls that reached the API layer, so the run can say which tier answered.
    let apiCalls: APICallLog

    /// The stack over `remote` and the `defaults` suite.
    init(remote: ExampleRemote<Person>, defaults: UserDefaults) {
        let device = UserDefaultsRepository<Person>(key: "person", defaults: defaults)
        let apiCalls = APICallLog()
        self.device = device
        self.apiCalls = apiCalls
        people = remote.repository
            .instrumented(label: "the people API") { apiCalls.record($0) }
            .fallback(to: device)
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
