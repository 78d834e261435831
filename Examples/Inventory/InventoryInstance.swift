import Foundation
import Repositories
import RepositoriesPostgres
import Synchronization

/// One instance of the inventory service: a `PostgresRepository` on the shared table, and a
/// cache in front of it that drops what any other instance writes.
struct InventoryInstance<Entity: Codable & Identifiable & Sendable>: Sendable
where Entity.ID == String {
    /// The instance's name, for the story.
    let name: String
    /// The table, shared with every other instance.
    let items: PostgresRepository<Entity>
    /// The instance's cache over it, coherent with the other instances' writes.
    let cached: CacheAsideRepository<PostgresRepository<Entity>, InMemoryRepository<Cached<Entity>>>
    /// What the cache heard from the other instances, in order.
    let heard: Heard

    /// Opens the table (creating it the first time, upgrading older rows with `migrations`).
    init(
        _ name: String, connectionString: String, table: String,
        migrations: Migrations<Entity> = Migrations()
    ) async throws {
        self.name = name
        items = try await PostgresRepository<Entity>(
            connectionString: connectionString,
            options: PostgresOptions(tableName: table, poolSize: 4, startupWait: .seconds(30)),
            migrations: migrations)
        let heard = Heard()
        self.heard = heard
        cached = items.cachedCoherently(
            in: InMemoryRepository<Cached<Entity>>(), timeToLive: .seconds(60),
            onChange: { heard.append($0) })
        try await heard.wait(for: "listening") { $0.contains(.everything(.startedListening)) }
    }

    /// Closes the connections and ends the cache's listening task.
    func close() async {
        await items.close()
    }
}

/// The changes an instance's cache handled, for the story to wait on.
final class Heard: Sendable {
    private let changes = Mutex<[PostgresChange<String>]>([])

    func append(_ change: PostgresChange<String>) {
        changes.withLock { $0.append(change) }
    }

    /// Waits until `condition` holds for what was heard, for up to two minutes: a change is
    /// heard within milliseconds alone, but CI's whole test suite on two cores once left the
    /// listener's task waiting more than ten seconds for a thread. A limit, not a measure.
    ///
    /// - Throws: ``StoryFailure`` naming `what` when it never does.
    func wait(for what: String, _ condition: ([PostgresChange<String>]) -> Bool) async throws {
        let limit = Duration.seconds(120)
        let deadline = ContinuousClock.now + limit
        while !changes.withLock({ condition($0) }) {
            guard ContinuousClock.now < deadline else {
                throw InventoryFailure("waited \(limit) for \(what); heard \(changes.withLock { $0 })")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until the cache handled a change of `id`, after the `count` changes heard before.
    func wait(forChangeOf id: String, after count: Int) async throws {
        try await wait(for: "the change of \(id)") { changes in
            changes.dropFirst(count).contains { change in
                if case .changed(let ids) = change { return ids.contains(id) }
                return true
            }
        }
    }

    var count: Int { changes.withLock { $0.count } }
}

/// A step of the story that did not go as the story says it must.
struct InventoryFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
