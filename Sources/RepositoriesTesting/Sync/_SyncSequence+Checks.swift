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
        return violations
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

    /// The remote holds what the last write it acknowledged for each ID left there.
    private func remoteKeeping(_ events: [_SyncLog<Entity>.Event], _ remoteState: [ID: Entity])
        -> [SyncConformanceViolation]
    {
        var last: [ID: Entity?] = [:]
        for event in events where event.kind == .landed { last[event.id] = .some(event.value) }
        var violations: [SyncConformanceViolation] = []
        for id in Set(last.keys).union(remoteState.keys) {
            let expected = last[id] ?? nil
            guard remoteState[id] != expected else { continue }
            violations.append(
                violation(
                    .remoteKeepsWhatItAcknowledged,
                    "the remote holds \(name(remoteState[id])) for \(name(id)), but the last write it acknowledged left \(name(expected))",
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
            // Applied: the remote took the change from this device, or this device read the
            // remote holding it already (an earlier try landed, or another device wrote the same).
            let landing = later.firstIndex {
                ($0.kind == .landed || $0.kind == .observed) && $0.device == change.device
                    && $0.id == change.id && $0.value == change.value
            }
            if let landing {
                let overwritten = events[(landing + 1)...].contains {
                    $0.kind == .landed && $0.id == change.id
                }
                if overwritten || remoteState[change.id] == change.value { continue }
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
                    $0.kind == .landed && $0.id == change.id && $0.device != change.device
                })
            {
                continue
            }
            let what = change.value == nil ? "delete of \(name(change.id))" : "save of \(name(change.value))"
            let fate =
                landing == nil
                ? "the remote never acknowledged it" : "the remote acknowledged it but does not hold it"
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
        for (id, event) in last where event.kind == .merged && remoteState[id] != event.value {
            violations.append(
                violation(
                    .mergesAreKept,
                    "device \(event.device + 1)'s merge made \(name(event.value)) for \(name(id)), the last change to it, but the remote holds \(name(remoteState[id]))",
                    about: id))
        }
        return violations
    }
}
