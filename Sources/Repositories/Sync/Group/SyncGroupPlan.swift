/// One pending change of a ``SyncGroup`` member, as the group orders it: which entity, when
/// it was made, and what it depends on.
package struct GroupedChange: Sendable, Equatable {
    /// The entity changed.
    package var entity: SyncDependency
    /// The revision of the change as it is now (its latest version), from the counter every
    /// member's outbox shares: when the app made that version.
    package var revision: UInt64
    /// The revision of the first change of this pending record: where it stands in the order
    /// the app made its changes; `nil` for a change first made before its outbox joined the
    /// group (its place is then before every change made in the group).
    package var firstRevision: UInt64?
    /// Whether the remote refused it.
    package var rejected: Bool
    /// The entities its current version needs on the remote first (the member's `dependsOn`).
    package var dependencies: [SyncDependency]

    package init(
        entity: SyncDependency, revision: UInt64, firstRevision: UInt64?, rejected: Bool,
        dependencies: [SyncDependency]
    ) {
        self.entity = entity
        self.revision = revision
        self.firstRevision = firstRevision
        self.rejected = rejected
        self.dependencies = dependencies
    }

    /// Where the change stands in the order the app made its changes: its first revision, or
    /// 0 (before everything) for one made before its outbox joined the group.
    package var order: UInt64 { firstRevision ?? 0 }
}

/// What a change waits for.
package enum SyncBlocker: Sendable, Equatable {
    /// The pending change of an entity it depends on, made before its current version.
    case change(GroupedChange)
    /// An entity of a type the group has no member of in this process, whose pending changes
    /// it cannot see.
    case notAMember(SyncDependency)

    /// The entity waited for.
    var entity: SyncDependency {
        switch self {
        case .change(let change): change.entity
        case .notAMember(let entity): entity
        }
    }
}

/// What a ``SyncGroup`` push sends next, decided from the members' pending changes alone.
///
/// Pure: no store, no remote, so its rules are tested from tables (`SyncGroupPlanTests`).
///
/// A change **waits** while an entity its current version depends on has a pending change
/// that began before that version was made (the dependency's ``GroupedChange/order`` below
/// the change's ``GroupedChange/revision``): that change must reach the remote first. One
/// begun after it holds nothing back, so a finding saved on an inspection the remote has,
/// before the app deleted the inspection, goes first, as the app made them; and a finding
/// moved to an inspection created after the finding's first version waits for it. A change
/// made before its outbox joined the group is taken as made before every other, and a change
/// waits too for an entity of a type the group has no member of in this process, whose
/// pending changes it cannot see. Where changes wait for each other in a circle, the one
/// made first goes.
///
/// The members' types go in the order their changes wait for each other: a type whose
/// changes others wait for goes before them; between types that do not wait for each other,
/// the one with the earliest change first. Each type's ready changes go in one push (its
/// requests batched as an ungrouped repository batches them), so a group of inspections and
/// findings sends the inspections, then every finding whose inspection the remote confirmed:
/// no more requests than the two repositories syncing apart.
package enum SyncGroupPlan {
    /// For each change that waits, what it waits for: the earliest pending change it depends
    /// on (or an entity of a type with no member, `members` being the member types).
    package static func blockers(
        in changes: [GroupedChange], members: Set<ObjectIdentifier>
    ) -> [SyncDependency: SyncBlocker] {
        let pending = Dictionary(changes.map { ($0.entity, $0) }, uniquingKeysWith: { first, _ in first })
        var blockers: [SyncDependency: SyncBlocker] = [:]
        // Every pending change each change waits for, earliest first.
        var waits: [SyncDependency: [GroupedChange]] = [:]
        for change in changes {
            if let absent = change.dependencies.first(where: { !members.contains($0.type) }) {
                blockers[change.entity] = .notAMember(absent)
                continue
            }
            let waitingFor = change.dependencies
                .compactMap { dependency -> GroupedChange? in
                    guard dependency != change.entity, let earlier = pending[dependency],
                        earlier.order < change.revision
                    else { return nil }
                    return earlier
                }
                .sorted { ($0.order, $0.entity.description) < ($1.order, $1.entity.description) }
            if !waitingFor.isEmpty { waits[change.entity] = waitingFor }
        }
        // Each circle of changes waiting for each other is opened at its change made first,
        // which stops waiting for the next one in the circle and still waits for the rest.
        while let circle = firstCircle(in: waits),
            let first = circle.indices.min(by: {
                (pending[circle[$0]]?.order ?? 0, circle[$0].description)
                    < (pending[circle[$1]]?.order ?? 0, circle[$1].description)
            })
        {
            let next = circle[(first + 1) % circle.count]
            waits[circle[first]]?.removeAll { $0.entity == next }
            if waits[circle[first]]?.isEmpty == true { waits[circle[first]] = nil }
        }
        for (entity, waitingFor) in waits where blockers[entity] == nil {
            if let earliest = waitingFor.first { blockers[entity] = .change(earliest) }
        }
        return blockers
    }

    /// A circle of `waits`, each change in it waiting for the next and the last for the first;
    /// `nil` when there is none. A depth-first walk without recursion, so a long chain (a
    /// thousand folders in each other) takes no stack.
    private static func firstCircle(in waits: [SyncDependency: [GroupedChange]]) -> [SyncDependency]? {
        var finished = Set<SyncDependency>()
        for root in waits.keys.sorted(by: { $0.description < $1.description }) where !finished.contains(root)
        {
            var path = [root]
            var onPath: Set = [root]
            var nextEdge = [0]
            while let node = path.last {
                let edges = waits[node] ?? []
                let index = nextEdge[nextEdge.count - 1]
                guard index < edges.count else {
                    finished.insert(node)
                    onPath.remove(node)
                    path.removeLast()
                    nextEdge.removeLast()
                    continue
                }
                nextEdge[nextEdge.count - 1] += 1
                let target = edges[index].entity
                if onPath.contains(target), let start = path.firstIndex(of: target) {
                    return Array(path[start...])
                }
                guard !finished.contains(target) else { continue }
                path.append(target)
                onPath.insert(target)
                nextEdge.append(0)
            }
        }
        return nil
    }

    /// The member types of `changes` in the order they are pushed: a type before every type
    /// with a change waiting for one of its changes; otherwise (and within a circle of types
    /// waiting for each other) the type with the earliest change first.
    package static func typeOrder(_ changes: [GroupedChange], members: Set<ObjectIdentifier>)
        -> [ObjectIdentifier]
    {
        var earliest: [ObjectIdentifier: UInt64] = [:]
        for change in changes {
            earliest[change.entity.type] = min(earliest[change.entity.type] ?? .max, change.order)
        }
        // waitsFor[U] holds the types U's changes wait for.
        var waitsFor: [ObjectIdentifier: Set<ObjectIdentifier>] = [:]
        for (waiting, blocker) in blockers(in: changes, members: members)
        where waiting.type != blocker.entity.type {
            waitsFor[waiting.type, default: []].insert(blocker.entity.type)
        }
        var order: [ObjectIdentifier] = []
        var left = Set(earliest.keys)
        while !left.isEmpty {
            let free = left.filter { (waitsFor[$0] ?? []).isDisjoint(with: left) }
            // A circle: the earliest change breaks it.
            let candidates = free.isEmpty ? left : free
            guard
                let next = candidates.min(by: {
                    (earliest[$0] ?? .max, $0.hashValue) < (earliest[$1] ?? .max, $1.hashValue)
                })
            else { break }
            order.append(next)
            left.remove(next)
        }
        return order
    }

    /// The changes of `type` to send now, each with the revision to send: not rejected, not
    /// waiting, made no later than `latest` (the counter as the sync began: a change made
    /// since waits for the next sync), and not tried already in this sync (`tried`, by
    /// entity and revision).
    package static func ready(
        _ changes: [GroupedChange], of type: ObjectIdentifier, members: Set<ObjectIdentifier>,
        upTo latest: UInt64, excluding tried: Set<GroupedChange.Version>
    ) -> [SyncDependency: UInt64] {
        let waiting = blockers(in: changes, members: members)
        var ready: [SyncDependency: UInt64] = [:]
        for change in changes
        where change.entity.type == type && !change.rejected && change.revision <= latest
            && !tried.contains(change.version) && waiting[change.entity] == nil
        {
            ready[change.entity] = change.revision
        }
        return ready
    }

    /// The error a change held back by `blockers[entity]` shows as its last one: which change
    /// it waits for, through which, and what to do.
    package static func heldBack(
        _ entity: SyncDependency, by blockers: [SyncDependency: SyncBlocker]
    ) -> RepositoryError? {
        guard var blocker = blockers[entity] else { return nil }
        var through: [SyncDependency] = []
        // The change at the root of the chain says why; a refused one in the middle is the root.
        while case .change(let change) = blocker, !change.rejected, let next = blockers[change.entity],
            !through.contains(change.entity)
        {
            through.append(change.entity)
            blocker = next
        }
        let via = through.isEmpty ? "" : " (through \(through.map(\.description).joined(separator: ", ")))"
        switch blocker {
        case .notAMember(let absent):
            return RepositoryError(
                .heldBack,
                reason:
                    "Waits for \(absent)\(via): the sync group has no repository of \(absent.typeName) in this "
                    + "process, so it cannot tell whether that entity has a change to send first",
                recovery:
                    "Open \(absent.typeName)'s offlineFirst(local:group:) in this process before syncing, or sync from "
                    + "the process that has it")
        case .change(let root) where root.rejected:
            return RepositoryError(
                .heldBack, reason: "Waits for the change to \(root.entity)\(via), which the server refused",
                recovery:
                    "Fix and retry(id:) the change to \(root.entity): this change goes after it. Discarding that "
                    + "change (discard(id:)) releases this one too, which the server refuses if it needs what was discarded"
            )
        case .change(let root):
            return RepositoryError(
                .heldBack,
                reason: "Waits for the change to \(root.entity)\(via), which has not reached the server yet",
                recovery: "Nothing to do: it goes once the change to \(root.entity) is confirmed")
        }
    }
}

extension GroupedChange {
    /// A change as a sync tries it: its entity at one revision.
    package struct Version: Hashable, Sendable {
        package var entity: SyncDependency
        package var revision: UInt64
    }

    /// This change's entity at its revision.
    package var version: Version { Version(entity: entity, revision: revision) }
}
