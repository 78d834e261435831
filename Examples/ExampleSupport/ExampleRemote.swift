import Foundation
import Repositories
import RepositoriesHTTP

/// An example's remote: the simulated API (an `InMemoryRepository` behind a
/// ``NetworkSwitch``), or, with `--api URL`, a real REST collection through
/// `HTTPRepository` behind the same switch, so an example can take either offline.
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

    /// The remote `options` ask for.
    ///
    /// - Parameters:
    ///   - resource: the collection's path under `--api URL`, such as `products`.
    ///   - seed: what the simulated API holds at start; unused with `--api`.
    ///   - latency: the simulated round trip of each request.
    public init(
        options: ExampleOptions, resource: String, seed: [Entity], latency: Duration = .milliseconds(5)
    ) {
        network = NetworkSwitch(online: !options.offline)
        if let apiURL = options.apiURL {
            let collection = apiURL.appendingPathComponent(resource)
            server = nil
            origin = collection.absoluteString
            direct = AnyRepository(HTTPRepository<Entity>(baseURL: collection))
            repository = SwitchedRepository(direct, network: network, name: "The API at \(origin)")
        } else {
            let store = InMemoryRepository<Entity>(seed)
            server = store
            origin = "the simulated \(resource) API"
            direct = AnyRepository(store)
            repository = SwitchedRepository(
                direct, network: network, latency: latency, name: "The \(resource) API")
        }
    }
}
