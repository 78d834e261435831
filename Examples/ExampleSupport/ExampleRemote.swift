import Foundation
import Repositories
import RepositoriesHTTP

/// An example's remote: the simulated API (an `InMemoryRepository` behind a
/// ``NetworkSwitch``), or, with `--api URL`, a real REST collection through
/// `HTTPRepository` behind the same switch, so an example can take either offline.
///
/// Given an ``APIValidation``, the simulated API is served over HTTP in process
/// (``SimulatedAPI``) and the app reaches it through `HTTPRepository`, so a write that breaks
/// a rule is refused as a real server refuses it, a `422` from FastAPI say, and reaches the
/// app with its status and its messages by field.
///
/// ```swift
/// let remote = ExampleRemote<Todo>(options: options, resource: "todos", seed: Todo.samples)
/// let todos = remote.repository.fallback(to: local)
/// remote.network.goOffline()
/// ```
public struct ExampleRemote<Entity: Codable & Identifiable & Sendable>: Sendable
where Entity.ID: Codable & Sendable {
    /// The remote to compose: every call passes the switch first.
    public let repository: SwitchedRepository<AnyRepository<Entity, Entity.ID>>
    /// The switch: off from the start under `--offline`.
    public let network: NetworkSwitch
    /// The simulated API's own store, to show what the "server" holds; `nil` with `--api`.
    public let server: InMemoryRepository<Entity>?
    /// The API itself, past the network switch: the simulated API's store, or the real
    /// collection under `--api`. For a story to check what the server holds whatever the
    /// switch says; the app's calls go through ``repository``.
    public let direct: AnyRepository<Entity, Entity.ID>
    /// Where the data comes from, for the example's output.
    public let origin: String
    /// What the simulated API checks before it takes a write; `nil` when it checks nothing,
    /// and with `--api`, where the real API has rules of its own.
    public let validation: APIValidation<Entity>?

    /// The remote `options` ask for.
    ///
    /// - Parameters:
    ///   - resource: the collection's path under `--api URL`, such as `products`.
    ///   - seed: what the simulated API holds at start; unused with `--api`.
    ///   - latency: the simulated round trip of each request.
    ///   - validation: what the simulated API checks before it takes a write; with it, the
    ///     simulated API is served over HTTP in process (``SimulatedAPI``). Unused with `--api`.
    public init(
        options: ExampleOptions, resource: String, seed: [Entity], latency: Duration = .milliseconds(5),
        validation: APIValidation<Entity>? = nil
    ) {
        network = NetworkSwitch(online: !options.offline)
        if let apiURL = options.apiURL {
            let collection = apiURL.appendingPathComponent(resource)
            server = nil
            origin = collection.absoluteString
            self.validation = nil
            direct = AnyRepository(HTTPRepository<Entity>(baseURL: collection))
            repository = SwitchedRepository(direct, network: network, name: "The API at \(origin)")
        } else {
            let store = InMemoryRepository<Entity>(seed)
            server = store
            origin = "the simulated \(resource) API"
            self.validation = validation
            direct = AnyRepository(store)
            repository = SwitchedRepository(
                Self.simulated(store, resource: resource, validation: validation), network: network,
                latency: latency, name: "The \(resource) API")
        }
    }

    /// The simulated API as the app reaches it: `store` itself, or, with `validation`, `store`
    /// served over HTTP in process at `https://simulated.example/RESOURCE`.
    private static func simulated(
        _ store: InMemoryRepository<Entity>, resource: String, validation: APIValidation<Entity>?
    ) -> AnyRepository<Entity, Entity.ID> {
        guard let validation else { return AnyRepository(store) }
        let collection = simulatedHost.appendingPathComponent(resource)
        return AnyRepository(
            HTTPRepository<Entity>(
                baseURL: collection,
                transport: SimulatedAPI(store: store, collection: collection, validation: validation)))
    }

    /// Where the simulated API served over HTTP lives: a reserved name (RFC 2606) no request
    /// leaves the process for.
    static var simulatedHost: URL { URL(string: "https://simulated.example")! }
}
