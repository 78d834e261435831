import Repositories

extension _SyncSequence {
    /// Reads the remote and every device after the final syncs and checks each law.
    func check() async -> [SyncConformanceViolation] {
        let remoteState: [ID: Entity]
        do {
            remoteState = Self.byID(try await remote.fetchAll())
        } catch {
            return [
                violation(.finalSyncsSucceed, "the remote's fetchAll() threw \(error) after the final syncs")
            ]
        }
        var violations: [SyncConformanceViolation] = []
        var rejected: [Set<ID>] = []
        for (number, device) in devices.enumerated() {
            rejected.append(await agreement(device, number, remoteState, into: &violations))
        }
        let events = log.events
        violations += remoteKeeping(events, remoteState)
        violations += accounting(events, remoteState, rejected)
        if case .merge = suite.conflicts { violations += mergesKept(events, remoteState) }
        violations += appliedOnce(events)
        return violations
    }

    /// What the remote stores for `value`: it with ``SyncConformanceOptions/normalize`` applied.
    func stored(_ value: Entity?) -> Entity? {
        guard let value, let normalize = suite.options.normalize else { return value }
        return normalize(value)
    }

    private static func byID(_ entities: [Entity]) -> [ID: Entity] {
        Dictionary(entities.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Checks one device against the remote; returns the IDs it holds a rejected change for.
    private func agreement(
        _ device: Device, _ number: Int, _ remoteState: [ID: Entity],
        into violations: inout [SyncConformanceViolation]
    ) async -> Set<ID> {
        let who = "device \(number + 1)"
        let local: [ID: Entity]
        do {
            local = Self.byID(try await device.stack.fetchAll())
        } catch {
            violations.append(violation(.devicesAgree, "\(who)'s fetchAll() threw \(error)"))
            return []
        }
        var refused = Set<ID>()
        let ids = Set(local.keys).union(remoteState.keys).union(indexOf.keys)
        for id in ids {
            do {
                switch try await device.stack.status(of: id) {
                case .synced: break
                case .rejected: refused.insert(id)
                case .pending(let attempts, let error):
                    violations.append(
                        violation(
                            .finalSyncsSucceed,
                            "\(who) still has a change of \(name(id)) pending after the final syncs (\(attempts) tries, last error \(error.map { "\($0)" } ?? "none"))",
                            about: id))
                }
            } catch {
                violations.append(
                    violation(.devicesAgree, "\(who)'s status(of: \(name(id))) threw \(error)", about: id))
            }
        }
        for id in ids.subtracting(refused) where local[id] != remoteState[id] {
            violations.append(
                violation(
                    .devicesAgree,
                    "\(who) holds \(name(local[id])) for \(name(id)), the remote \(name(remoteState[id]))",
                    about: id))
        }
        return refused
    }

    /// The remote holds what the last write it applied for each ID left there, answer lost
    /// or not.
    private func remoteKeeping(_ events: [_SyncLog<Entity>.Event], _ remoteState: [ID: Entity])
        -> [SyncConformanceViolation]
    {
        var last: [ID: Entity?] = [:]
        for event in events where event.kind == .applied { last[event.id] = .some(event.value) }
        var violations: [SyncConformanceViolation] = []
        for id in Set(last.keys).union(remoteState.keys) {
            let expected = stored(last[id] ?? nil)
            guard remoteState[id] != expected else { continue }
            violations.append(
                violation(
                    .remoteKeepsWhatItAcknowledged,
                    "the remote holds \(name(remoteState[id])) for \(name(id)), but the last write it applied left \(name(expected))",
                    about: id))
        }
        return violations
    }

    /// Every change a device acknowledged is applied, superseded, or rejected and visible.
    private func accounting(
        _ events: [_SyncLog<Entity>.Event], _ remoteState: [ID: Entity], _ rejected: [Set<ID>]
    ) -> [SyncConformanceViolation] {
        var droppable = false
        if case .serverWins = suite.conflicts { droppable = true }
        var violations: [SyncConformanceViolation] = []
        for (position, change) in events.enumerated() where change.kind == .acknowledged {
            let later = events[(position + 1)...]
            // Applied: the remote applied the change from this device (whether or not its answer
            // arrived), or this device read the remote holding it already (an earlier try
            // landed, or another device wrote the same), as the remote stores it.
            let landing = later.firstIndex {
                $0.device == change.device && $0.id == change.id
                    && (($0.kind == .applied && $0.value == change.value)
                        || ($0.kind == .observed && $0.value == stored(change.value)))
            }
            if let landing {
                let overwritten = events[(landing + 1)...].contains {
                    $0.kind == .applied && $0.id == change.id
                }
                if overwritten || remoteState[change.id] == stored(change.value) { continue }
            }
            let superseded = later.contains {
                $0.device == change.device && $0.id == change.id
                    && ($0.kind == .acknowledged || $0.kind == .merged)
            }
            if superseded || rejected[change.device].contains(change.id) { continue }
            var isMerge = false
            if case .merge = suite.conflicts { isMerge = true }
            // The policy may keep the remote's version, which another device sent.
            let policyDrops = droppable || (isMerge && change.value == nil)
            if policyDrops,
                events.contains(where: {
                    $0.kind == .applied && $0.id == change.id && $0.device != change.device
                })
            {
                continue
            }
            let what = change.value == nil ? "delete of \(name(change.id))" : "save of \(name(change.value))"
            let fate =
                landing == nil
                ? "the remote never applied it" : "the remote applied it but does not hold it"
            violations.append(
                violation(
                    .acknowledgedChangesAreAccountedFor,
                    "device \(change.device + 1)'s acknowledged \(what) is lost: \(fate), no later change superseded it, and it is not rejected; the remote holds \(name(remoteState[change.id]))",
                    about: change.id))
        }
        return violations
    }

    /// Under `.merge`, an ID whose last event was a merge holds the merge's result.
    private func mergesKept(_ events: [_SyncLog<Entity>.Event], _ remoteState: [ID: Entity])
        -> [SyncConformanceViolation]
    {
        var last: [ID: _SyncLog<Entity>.Event] = [:]
        for event in events where event.kind == .acknowledged || event.kind == .merged {
            last[event.id] = event
        }
        var violations: [SyncConformanceViolation] = []
        for (id, event) in last where event.kind == .merged && remoteState[id] != stored(event.value) {
            violations.append(
                violation(
                    .mergesAreKept,
                    "device \(event.device + 1)'s merge made \(name(event.value)) for \(name(id)), the last change to it, but the remote holds \(name(remoteState[id]))",
                    about: id))
        }
        return violations
    }
}

extension _SyncSequence {
    /// A device and an ID: where one device's changes to one entity are looked up.
    private struct Lane: Hashable {
        var device: Int
        var id: ID
    }

    /// Counting at the remote: each change a device made (acknowledged, or a merge's result)
    /// is applied at most once, and each one the remote answered as done was applied.
    func appliedOnce(_ events: [_SyncLog<Entity>.Event]) -> [SyncConformanceViolation] {
        var changes: [Lane: [Int]] = [:]
        var applications: [Int: Int] = [:]
        var answered: [Int] = []
        for (position, event) in events.enumerated() {
            let lane = Lane(device: event.device, id: event.id)
            switch event.kind {
            case .acknowledged, .merged:
                changes[lane, default: []].append(position)
            case .applied, .landed:
                // The latest change of this device to this ID with that content: a save's
                // content names its change; a delete is the latest delete made before it.
                guard
                    let change = changes[lane]?.last(where: { events[$0].value == event.value })
                else { continue }
                if event.kind == .applied {
                    applications[change, default: 0] += 1
                } else {
                    answered.append(change)
                }
            case .observed:
                continue
            }
        }
        var violations: [SyncConformanceViolation] = []
        for (change, count) in applications.sorted(by: { $0.key < $1.key }) where count > 1 {
            let event = events[change]
            violations.append(
                violation(
                    .changesAreAppliedOnce,
                    "device \(event.device + 1)'s \(what(event)) was applied \(count) times by the remote",
                    about: event.id))
        }
        for change in Set(answered).sorted() where applications[change] == nil {
            let event = events[change]
            violations.append(
                violation(
                    .changesAreAppliedOnce,
                    "the remote answered device \(event.device + 1)'s \(what(event)) as done but never applied it: the answer was another request's, replayed for a reused idempotency key",
                    about: event.id))
        }
        return violations
    }

    private func what(_ event: _SyncLog<Entity>.Event) -> String {
        let kind = event.kind == .merged ? "merged " : ""
        return event.value == nil
            ? "\(kind)delete of \(name(event.id))" : "\(kind)save of \(name(event.value))"
    }
}
