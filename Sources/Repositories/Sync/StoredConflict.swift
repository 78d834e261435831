import Foundation

/// A settled conflict as the outbox keeps it on disk (``SyncConflict``'s fields), over the
/// entity's shape `Payload`: the entity itself for the conflicts the sync writes, or an older
/// version's shape while the outbox's migrations read one an earlier release wrote (only
/// the four versions are upgraded; the other fields have not changed between versions).
package struct StoredConflict<Payload: Sendable, ID: Codable & Sendable & Hashable>: Sendable, Identifiable {
    package var id: UUID
    var entityID: ID
    var base: Payload?
    var local: Payload?
    var remote: Payload?
    var result: Payload?
    var resolution: ConflictResolution
    var settledAt: Date

    /// The same conflict with its four versions passed through `transform`.
    func mapPayload<New: Sendable>(_ transform: (Payload) throws -> New) rethrows -> StoredConflict<New, ID> {
        StoredConflict<New, ID>(
            id: id, entityID: entityID, base: try base.map(transform), local: try local.map(transform),
            remote: try remote.map(transform), result: try result.map(transform), resolution: resolution,
            settledAt: settledAt)
    }
}

extension StoredConflict: Encodable where Payload: Encodable {}
extension StoredConflict: Decodable where Payload: Decodable {}

extension StoredConflict where Payload: Identifiable, Payload.ID == ID {
    /// The record kept of `conflict`.
    init(_ conflict: SyncConflict<Payload>) {
        self.init(
            id: conflict.id, entityID: conflict.entityID, base: conflict.base, local: conflict.local,
            remote: conflict.remote, result: conflict.result, resolution: conflict.resolution,
            settledAt: conflict.settledAt)
    }

    /// The conflict this record keeps.
    var conflict: SyncConflict<Payload> {
        SyncConflict(
            id: id, entityID: entityID, base: base, local: local, remote: remote, result: result,
            resolution: resolution, settledAt: settledAt)
    }
}
