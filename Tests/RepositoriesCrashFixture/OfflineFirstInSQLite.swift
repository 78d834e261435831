import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport

/// `offline-first-sqlite <device-dir> <remote-path> <first-id> <seed> <policy>`: a device whose outbox
/// lives in its local SQLite database (`Outbox(in:)`), over a SQLite remote with a change feed,
/// writing until it is killed: single saves, batches, a save replaced at once, deletes of its
/// own earlier IDs, a sync every few writes. Prints `try save ID REVISION` or `try delete ID`
/// before each write, `saved ID REVISION` or `deleted ID` once it returned (so it is
/// acknowledged), and `synced` after each sync.
///
/// `policy` (`lastWriterWins`, `serverWins` or `mergeFields`) settles the conflicts with the
/// changes another client makes on the remote between runs: keeping the remote's version and
/// sending a merge write the outbox and the row together too.
func offlineFirstInSQLite(
    device: URL, remote remotePath: String, firstID: Int, seed: UInt64, policy: String
) async throws {
    let remote = try await SQLiteRepository<FixtureEntity>(fileURL: URL(fileURLWithPath: remotePath))
    let local = try await SQLiteRepository<FixtureEntity>(fileURL: device.appending(path: "device.sqlite"))
    let outbox = try await Outbox(in: local)
    let conflicts: ConflictPolicy<FixtureEntity> =
        switch policy {
        case "serverWins": .serverWins
        case "mergeFields": .mergeFields(tie: .remote)
        default: .lastWriterWins
        }
    let notes = remote.offlineFirst(local: local, outbox: outbox, conflicts: conflicts, automaticSync: nil)
    var random = SeededRandomNumberGenerator(seed: seed)
    var mine: [Int] = []
    var next = firstID
    say("ready")
    // Each write is announced (`try …`) before it starts and confirmed after it returned: the
    // parent then knows the one write a kill may have caught half way.
    func save(_ entities: [FixtureEntity]) async throws {
        for entity in entities { say("try save \(entity.id) \(entity.revision ?? -1)") }
        if entities.count == 1 {
            try await notes.save(entities[0])
        } else {
            try await notes.save(contentsOf: entities)
        }
        for entity in entities { say("saved \(entity.id) \(entity.revision ?? -1)") }
    }
    // The last few IDs of the run before, edited again: those another client changed on the
    // remote meanwhile meet their conflict at the next sync.
    for id in max(0, firstID - 8)..<firstID {
        try await save([FixtureEntity.make(id, revision: 9_000 + Int(seed))])
    }
    while true {
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
            let batch = (next..<(next + 4)).map { FixtureEntity.make($0, revision: 0) }
            try await save(batch)
            mine += batch.map(\.id)
            next += 4
        case 2:
            // A save replaced at once: the queued change is superseded.
            try await save([FixtureEntity.make(next, revision: 0)])
            try await save([FixtureEntity.make(next, revision: 1)])
            mine.append(next)
            next += 1
        case 3 where mine.count > 4:
            let id = mine.remove(at: Int.random(in: 0..<mine.count, using: &random))
            say("try delete \(id)")
            try await notes.delete(id: id)
            say("deleted \(id)")
        case 4 where mine.count > 4:
            let id = mine[Int.random(in: 0..<mine.count, using: &random)]
            try await save([FixtureEntity.make(id, revision: Int.random(in: 2..<1_000, using: &random))])
        case 5:
            try await notes.sync()
            say("synced")
        default:
            try await save([FixtureEntity.make(next, revision: 0)])
            mine.append(next)
            next += 1
        }
    }
}
