import Foundation
import Repositories

/// Pushes this device's todos to the API, which keeps a backup of this device's list. The
/// device's store is the source of truth (a todo app must work offline), and a push makes the
/// API hold exactly that list: todos the API holds that this device lacks are deleted there.
/// So it is not a sync between devices: two devices pushing to one API would delete each
/// other's todos.
struct TodoSync: Sendable {
    /// What a push did.
    struct Outcome: Equatable, Sendable {
        /// The todos the API was sent (all of the device's).
        var pushed: Int
        /// The todos the API held that the device had deleted, now deleted there too.
        var removed: Int
    }

    /// The device's todos.
    let device: any Repository<Todo, UUID>
    /// The API that keeps the backup.
    let api: any Repository<Todo, UUID>

    /// Makes the API hold exactly the device's todos, in two or three calls: reads the API's
    /// todos, saves the device's as one batch, then deletes the ones the device no longer has
    /// (when there are any).
    ///
    /// - Throws: the API's error (`unavailable` while offline). The device's store is only
    ///   read, so a failed push loses nothing: the next push sends everything again.
    func push() async throws -> Outcome {
        let todos = try await device.fetchAll()
        let kept = Set(todos.map(\.id))
        let deleted = try await api.fetchAll().map(\.id).filter { !kept.contains($0) }
        try await api.save(contentsOf: todos)
        if !deleted.isEmpty { try await api.delete(ids: deleted) }
        return Outcome(pushed: todos.count, removed: deleted.count)
    }
}
