import Foundation

/// The conflicts a sync settled that the app has not acknowledged yet, kept in storage of
/// their own beside the outbox's changes: a file beside the outbox's (its name with
/// `.conflicts` added), in the journal of a ``FileRepository`` like the outbox's own, or a
/// table beside the outbox's in its SQLite database. A conflict kept survives `kill -9`, and
/// one settled before an app update is upgraded by the outbox's migrations.
///
/// A conflict is kept before the sync acts on it (drops the change, or replaces it with a
/// merge), under an identity made from the change and the remote's version, so a sync
/// killed in between and settling the same conflict again keeps it once, not twice.
final class ConflictLog<Entity: Codable & Identifiable & Sendable>: Sendable
where Entity.ID: Codable & Sendable {
    private let store: any OutboxStorage<StoredConflict<Entity, Entity.ID>>
    private let signals = ChangeBroadcaster<Void>()

    /// The log kept in `store`.
    init(store: any OutboxStorage<StoredConflict<Entity, Entity.ID>>) {
        self.store = store
    }

    /// Closes the log's storage (a journal's file and its lock, or a table).
    func close() async throws { try await store.close() }

    /// The conflicts kept, in the order they were settled.
    func all() async throws -> [SyncConflict<Entity>] {
        try await store.fetchAll().map(\.conflict).sorted { $0.settledAt < $1.settledAt }
    }

    /// The conflicts now, then after every change to them.
    func updates() -> AsyncStream<[SyncConflict<Entity>]> {
        signals.readOnEverySignal { [weak self] in
            guard let self else { throw CancellationError() }
            return try await self.all()
        }
    }

    /// Keeps `conflict` durably; one already kept under its identity is left as it is.
    func keep(_ conflict: SyncConflict<Entity>) async throws {
        guard try await store.fetch(ids: [conflict.id]).isEmpty else { return }
        try await store.save(contentsOf: [StoredConflict(conflict)])
        publish()
    }

    /// Forgets the conflict `id`; one not kept (acknowledged already) is no error.
    func acknowledge(_ id: UUID) async throws {
        try await store.delete(ids: [id])
        publish()
    }

    /// How many streams of ``updates()`` are iterated.
    var subscriberCount: Int { signals.subscriberCount }

    /// Tells the streams of ``updates()`` to read the conflicts again: this instance changed
    /// them, or another one that shares the storage may have.
    func publish() { signals.send(()) }
}
