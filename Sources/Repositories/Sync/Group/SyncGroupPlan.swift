/// One pending change of a ``SyncGroup`` member, as the group orders it: which entity,
/// where it stands in the order the app made its changes, and what it depends on.
package struct GroupedChange: Sendable, Equatable {
    /// The entity changed.
    package var entity: SyncDependency
    /// Where the change stands in the order the app made its changes: the revision of its
    /// first change, from the counter every member's outbox shares.
    package var order: UInt64
    /// Whether the remote refused it.
    package var rejected: Bool
    /// The entities it needs on the remote first (the member's `dependsOn`).
    package var dependencies: [SyncDependency]

    package init(entity: SyncDependency, order: UInt64, rejected: Bool, dependencies: [SyncDependency]) {
        self.entity = entity
        self.order = order
        self.rejected = rejected
        self.dependencies = dependencies
    }
}

/// What a ``SyncGroup`` push sends next, decided from the members' pending changes alone.
///
/// Pure: no store, no remote, so its rules are tested from tables (`SyncGroupPlanTests`).
///
/// A change **waits** while an entity it depends on has a pending change the app made before
/// it (a smaller ``GroupedChange/order``): that change must reach the remote first. One made
/// after it holds nothing back, so a finding saved on an inspection the remote has, before the
/// app deleted the inspection, goes first, as the app made them.
///
/// The members' types go in the order their changes wait for each other: a type whose
/// changes others wait for goes before them; between types that do not wait for each other,
/// the one with the earliest change first. Each type's ready changes go in one push (its
/// requests batched as an ungrouped repository batches them), so a group of inspections and
/// findings sends the inspections, then every finding whose inspection the remote confirmed:
/// no more requests than the two repositories syncing apart.
package enum SyncGroupPlan {
    /// For each change that waits, the earliest pending change it waits for.
    package static func blockers(in changes: [GroupedChange]) -> [SyncDependency: GroupedChange] {
        let pending = Dictionary(changes.map { ($0.entity, $0) }, uniquingKeysWith: { first, _ in first })
        var blockers: [SyncDependency: GroupedChange] = [:]
        for change in changes {
            let waitingFor = change.dependencies
                .compactMap { dependency -> GroupedChange? in
                    guard dependency != change.entity, let earlier = pending[dependency],
                        earlier.order < change.order
                    else { return nil }
                    return earlier
                }
                .min { $0.order < $1.order }
            if let waitingFor { blockers[change.entity] = waitingFor }
        }
        return blockers
    }

    /// The member types of `changes` in the order they are pushed: a type before every type
    /// with a change waiting for one of its changes; otherwise (and within a cycle of types
    /// waiting for each other) the type with the earliest change first.
    package static func typeOrder(_ changes: [GroupedChange]) -> [ObjectIdentifier] {
        var earliest: [ObjectIdentifier: UInt64] = [:]
        for change in changes {
            earliest[change.entity.type] = min(earliest[change.entity.type] ?? .max, change.order)
        }
        // waitsFor[U] holds the types U's changes wait for.
        var waitsFor: [ObjectIdentifier: Set<ObjectIdentifier>] = [:]
        for (waiting, blocker) in blockers(in: changes) where waiting.type != blocker.entity.type {
            waitsFor[waiting.type, default: []].insert(blocker.entity.type)
        }
        var order: [ObjectIdentifier] = []
        var left = Set(earliest.keys)
        while !left.isEmpty {
            let free = left.filter { (waitsFor[$0] ?? []).isDisjoint(with: left) }
            // A cycle: the earliest change breaks it.
            let candidates = free.isEmpty ? left : free
            guard let next = candidates.min(by: { (earliest[$0] ?? .max) < (earliest[$1] ?? .max) }) else {
                break
            }
            order.append(next)
            left.remove(next)
        }
        return order
    }

    /// The changes of `type` to send now: not rejected, not waiting, not tried already in
    /// this sync (`tried`).
    package static func ready(
        _ changes: [GroupedChange], of type: ObjectIdentifier, excluding tried: Set<SyncDependency>
    ) -> Set<SyncDependency> {
        let waiting = blockers(in: changes)
        return Set(
            changes.lazy
                .filter { $0.entity.type == type && !$0.rejected && !tried.contains($0.entity) }
                .filter { waiting[$0.entity] == nil }
                .map(\.entity))
    }

    /// The error a change waiting for `blocker` shows as its last one: which change it waits
    /// for, and what to do.
    package static func heldBack(by blocker: GroupedChange) -> RepositoryError {
        if blocker.rejected {
            return RepositoryError(
                .heldBack,
                reason: "Waits for the change to \(blocker.entity), which the server refused",
                recovery:
                    "Fix and retry(id:) the change to \(blocker.entity), or discard(id:) it; this change goes after"
            )
        }
        return RepositoryError(
            .heldBack,
            reason: "Waits for the change to \(blocker.entity), which has not reached the server yet",
            recovery: "Nothing to do: it goes once the change to \(blocker.entity) is confirmed")
    }
}
