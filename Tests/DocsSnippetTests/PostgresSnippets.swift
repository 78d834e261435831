import Foundation
import Repositories
import RepositoriesPostgres

/// The Swift snippets of Docs/Postgres.md, verbatim.
struct PostgresSnippets {
    struct Note: Identifiable, Codable, Sendable {
        var id: String
        var text: String
    }

    /// The introduction: a shared table, a coherent cache in every instance.
    func introduction() async throws -> Note? {
        let notes = try await PostgresRepository<Note>(
            connectionString: "postgresql://app:secret@db.internal/app?sslmode=verify-full",
            options: PostgresOptions(tableName: "notes", poolSize: 8))

        // In every instance: a cache that drops what any other instance changes.
        let cachedNotes = notes.cachedCoherently(
            in: InMemoryRepository<Cached<Note>>(), timeToLive: .seconds(300))

        try await cachedNotes.save(Note(id: "n1", text: "Buy milk"))
        let note = try await cachedNotes.fetch(id: "n1")
        // …
        await notes.close()  // ends the change feed and the cache's invalidating task
        return note
    }

    struct Item: Identifiable, Codable, Sendable {
        var id: Int
        var stock: Int
    }

    /// "Setup": a service that starts beside its database waits for it.
    func startingBesideTheDatabase() async throws -> PostgresRepository<Item> {
        let url = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "postgresql://app@localhost/app"
        let inventory = try await PostgresRepository<Item>(
            connectionString: url, options: PostgresOptions(tableName: "items", startupWait: .seconds(60)))
        return inventory
    }

    struct OutOfStock: Error {}

    /// "Migrations": version 2 of the item, and the upgrade from version 1.
    enum Shelved {
        struct ItemV1: Codable, Sendable {
            var id: Int
            var name: String
            var stock: Int
        }

        struct Item: Identifiable, Codable, Sendable {
            var id: Int
            var name: String
            var stock: Int
            var shelf: String
        }

        static func migrating(url: String) async throws -> PostgresRepository<Item> {
            let migrations = try Migrations<Item>(
                .upgrade(from: 1) { (old: ItemV1) in
                    Item(id: old.id, name: old.name, stock: old.stock, shelf: "unsorted")
                })
            let items = try await PostgresRepository<Item>(
                connectionString: url, options: PostgresOptions(tableName: "items"), migrations: migrations)
            return items
        }
    }

    /// "Lost updates": an atomic stock decrement.
    func decrement(_ inventory: PostgresRepository<Item>, sku: Int) async throws -> Item {
        let item = try await inventory.update(id: sku) { item in
            guard item.stock > 0 else { throw OutOfStock() }
            item.stock -= 1
        }
        return item
    }

    /// "Transactions": a decrement and a reservation's removal, together.
    func takeReservation(
        _ inventory: PostgresRepository<Item>, sku: Int, quantity: Int, reservationID: Int
    ) async throws {
        try await inventory.transaction { tx in
            guard var item = try await tx.fetch(id: sku) else { throw OutOfStock() }
            item.stock -= quantity
            try await tx.save(item)
            try await tx.delete(id: reservationID)
        }
    }

    /// "The coherence promise": the loop `cachedCoherently` runs, by hand.
    func byHand(postgres: PostgresRepository<Note>) {
        let cached = postgres.cached(in: InMemoryRepository<Cached<Note>>(), timeToLive: .seconds(300))
        Task {
            for await change in postgres.changes() {
                switch change {
                case .changed(let ids): await cached.invalidate(ids: ids)
                case .everything: await cached.invalidateAll()
                }
            }
        }
    }

    /// "The change feed": paging from a cursor into a mirror.
    func changeFeed(notes: PostgresRepository<Note>, mirror: InMemoryRepository<Note>) async throws {
        var cursor: SyncCursor? = nil  // nil: every entity the table holds
        var more = true
        while more {
            let page = try await notes.changes(since: cursor, limit: 500)
            try await mirror.save(contentsOf: page.saved)
            try await mirror.delete(ids: page.deleted)
            cursor = page.next  // keep it with what you applied
            more = page.hasMore
        }
    }
}
