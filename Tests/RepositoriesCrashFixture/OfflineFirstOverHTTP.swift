import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes through an offline-first stack over a real HTTP server forever
/// (``writeAndSyncForever(_:first:)``), and kills itself with SIGKILL the `occurrence`-th
/// time it reaches `step`.
func offlineFirstOverHTTP(device: URL, api: URL, step: _OfflineFirstStep, occurrence: Int, first: Int)
    async throws
{
    killItself(at: step, occurrence: occurrence)
    let local = try await FileRepository<FixtureEntity>(fileURL: device.appending(path: "device.store"))
    let outbox = try await Outbox<FixtureEntity>(fileURL: device.appending(path: "device.outbox"))
    let notes = HTTPRepository<FixtureEntity>(baseURL: api)
        .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
    say("ready")
    try await writeAndSyncForever(notes, first: first)
}

/// New entities one at a time and in batches, edits and deletes of entities `notes` holds,
/// and a sync every third write, forever; prints `begin save ID REVISION` or
/// `begin delete ID` before each change and `ack …` the same once its write returned, each
/// line in one write, so the parent knows exactly what was acknowledged before a kill.
func writeAndSyncForever<Remote, Local>(_ notes: OfflineFirstRepository<Remote, Local>, first: Int)
    async throws
where Remote.Entity == FixtureEntity, Remote.ID == Int {
    var next = first
    var turn = 0
    while true {
        turn += 1
        let held = try await notes.fetchAll()
        let existing = held.isEmpty ? nil : held[turn % held.count]
        switch (turn % 5, existing) {
        case (0, _):
            let batch = (next..<(next + 3)).map { FixtureEntity.make($0, revision: 1) }
            for entity in batch { say("begin save \(entity.id) 1") }
            try await notes.save(contentsOf: batch)
            for entity in batch { say("ack save \(entity.id) 1") }
            next += 3
        case (2, let entity?):
            let revision = (entity.revision ?? 0) + 1
            say("begin save \(entity.id) \(revision)")
            try await notes.save(FixtureEntity.make(entity.id, revision: revision))
            say("ack save \(entity.id) \(revision)")
        case (4, let entity?):
            say("begin delete \(entity.id)")
            try await notes.delete(id: entity.id)
            say("ack delete \(entity.id)")
        default:
            say("begin save \(next) 1")
            try await notes.save(FixtureEntity.make(next, revision: 1))
            say("ack save \(next) 1")
            next += 1
        }
        if turn % 3 == 0 { try await notes.sync() }
    }
}

/// Makes the process kill itself with SIGKILL the `occurrence`-th time the offline-first
/// stack reaches `step`.
func killItself(at step: _OfflineFirstStep, occurrence: Int) {
    let reached = Atomic(0)
    _OfflineFirstTestHooks.onStep.withLock { hook in
        hook = { current in
            guard current == step else { return }
            if reached.add(1, ordering: .sequentiallyConsistent).newValue == occurrence {
                kill(getpid(), SIGKILL)
            }
        }
    }
}
