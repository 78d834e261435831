/// An entity of another type (or the same) that a change of a ``SyncGroup`` member needs on
/// the remote before it can be sent: a `Finding` needs its `Inspection`.
///
/// ```swift
/// let findings = try await api.findings.offlineFirst(
///     local: findingsTable, group: group,
///     dependsOn: { change in
///         guard case .save(let finding) = change.kind else { return [] }
///         return [SyncDependency(Inspection.self, id: finding.inspectionID)]
///     })
/// ```
///
/// A change waits for the pending change of each entity it names that the app made before
/// it; an entity with no pending change, or only a later one, holds nothing back.
///
/// It also names an entity of any member in the group's ``SyncReport``: a report's
/// `rejections[SyncDependency(Finding.self, id: finding.id)]`.
public struct SyncDependency: Hashable, Sendable, CustomStringConvertible {
    /// The entity type's name, as Swift prints it: `Inspection`.
    public let typeName: String
    /// The entity's ID, as Swift prints it.
    public let id: String
    /// The entity type itself, so two types of one name in different modules differ.
    let type: ObjectIdentifier

    /// The entity of type `type` with ID `id`.
    public init<Entity: Identifiable>(_ type: Entity.Type, id: Entity.ID) {
        self.typeName = String(describing: type)
        self.id = String(describing: id)
        self.type = ObjectIdentifier(type)
    }

    /// "Inspection 42".
    public var description: String { "\(typeName) \(id)" }
}
