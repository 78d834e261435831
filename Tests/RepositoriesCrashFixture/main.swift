// A child process for the durability tests: it opens a store and works on it until it is
// killed, printing each ID once the call that saved it has returned.
//
//   RepositoriesCrashFixture save-loop <store-path> <first-id>   save forever; print acknowledged IDs
//   RepositoriesCrashFixture replace-loop <store-path> <first-revision>
//       four writers replace their entities forever, compacting often; print "id revision"
//   RepositoriesCrashFixture hold <store-path>                   open, print "opened", hold until stdin closes
//   RepositoriesCrashFixture write <store-path> <first-id> <count>  save <count> entities, close, print "done"
//   RepositoriesCrashFixture migrate <store-path>
//       print "opening", open the store at FixtureEntityV2's version 2 (upgrading what version
//       1 wrote), close it, print "migrated"
//   RepositoriesCrashFixture offline-first <device-dir> <remote-path> <first-id>
//       write through an offline-first stack forever, syncing to a file "remote" now and then;
//       print each ID once its write returned
//   RepositoriesCrashFixture offline-first-http <device-dir> <api-url> <step> <occurrence> <first-id>
//       write through an offline-first stack over a real HTTP server, syncing every third
//       write, and SIGKILL itself the <occurrence>-th time it reaches <step>; print
//       "begin …" and "ack …" around each change (see OfflineFirstOverHTTP.swift)
//   RepositoriesCrashFixture offline-first-fastapi <device-dir> <tasks-url> <step|answer> <occurrence>
//       <first-number> <first-change> <changes> <seed>
//       make <changes> changes offline through an offline-first stack over the real FastAPI
//       app, then sync until the outbox drains; SIGKILL itself the <occurrence>-th time it
//       reaches <step> (or the <occurrence>-th 2xx answer to a write, before the repository
//       reads it); print "begin …" and "ack …" around each change (see OfflineFirstOverFastAPI.swift)
//   RepositoriesCrashFixture sqlite-concurrent-saves <store-path> <first-revision>
//       eight writers replace their entities in a SQLiteRepository forever (group commits);
//       print "id revision" once each save returned (see SQLiteConcurrentSaves.swift)
//   RepositoriesCrashFixture sqlite-save-loop <store-path> <first-id>
//       save new entities into a SQLiteRepository forever; print each ID once its save returned
//   RepositoriesCrashFixture sqlite-write <store-path> <first-id> <count>
//       open a SQLiteRepository, save <count> entities printing each ID, close, print "done"
//   RepositoriesCrashFixture sqlite-open-at-once <store-path> <id>
//       print "ready", wait for standard input to close, open a SQLiteRepository (perhaps
//       creating the file), save one entity, close, print "done" (see SQLiteSharedFile.swift)
//   RepositoriesCrashFixture sqlite-open <store-path>
//       print "opening", open a SQLiteRepository (making the change log of a table that has
//       none), print "opened", close, print "closed" (see SQLiteChangeLogBackFill.swift)
//   RepositoriesCrashFixture sqlite-open-indexed <store-path>
//       print "opening", open the FixtureEntity table as IndexedFixtureEntity (adding and
//       filling its field columns), print "opened", close, print "closed"
//   RepositoriesCrashFixture offline-first-feed <device-dir> <remote-sqlite-path> <first-id>
//       a device over a SQLite remote with a change feed, saving and syncing forever; print
//       each ID once its save returned (see OfflineFirstOverSQLiteFeed.swift)
//   RepositoriesCrashFixture sync-group-sqlite <device-dir> <remote-dir> <first-id> <seed> <app|extension>
//       one process of a device whose inspections and findings are one SyncGroup, writing and
//       syncing until killed; print "try …", "saved …", "deleted …", "synced" (see SyncGroupInSQLite.swift)
//   RepositoriesCrashFixture offline-first-endpoint <device-dir> <conninfo> <table> <step> <occurrence> <first-id>
//       a device (SQLite and its outbox) over SyncEndpoint over PostgresRepository, writing and
//       syncing forever, SIGKILL itself the <occurrence>-th time it reaches <step>; print
//       "begin …" and "ack …" around each change (see OfflineFirstOverSyncEndpoint.swift)
//   RepositoriesCrashFixture offline-first-endpoint-sync <device-dir> <conninfo> <table>
//       the same device: open, sync once, close, print "synced: <report>"
//   RepositoriesCrashFixture postgres-upgrade <conninfo> <table> <kill-at>
//       open a PostgresRepository at StockItems.V2, upgrading what version 1 wrote, and
//       SIGKILL itself inside the upgrade of the <kill-at>-th row (see PostgresUpgrade.swift)
//   RepositoriesCrashFixture postgres-open-indexed <conninfo> <table>
//       print "opening", open the table's FixtureEntity rows as IndexedFixtureEntity (adding
//       and filling its field columns), print "opened", close, print "closed"
//   RepositoriesCrashFixture copy-of-record - writeThrough|fallback|wrapped
//       build a two-tier stack with a system of record as its copy; print "built" if it let us
import Foundation
import Repositories
import RepositoriesTestSupport

/// Writes a line straight to standard output (one write, no buffering), so the parent
/// reads exactly what was acknowledged before the kill.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A stand-in for a web API: the system of record for its data.
struct RecordKeeper: SystemOfRecord {
    let base = InMemoryRepository<FixtureEntity>()
    func fetch(id: FixtureEntity.ID) async throws -> FixtureEntity? { try await base.fetch(id: id) }
    func fetchAll() async throws -> [FixtureEntity] { try await base.fetchAll() }
    func save(_ entity: FixtureEntity) async throws { try await base.save(entity) }
    func save(contentsOf entities: [FixtureEntity]) async throws { try await base.save(contentsOf: entities) }
    func delete(id: FixtureEntity.ID) async throws { try await base.delete(id: id) }
    func deleteAll() async throws { try await base.deleteAll() }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(
        Data("usage: RepositoriesCrashFixture save-loop|hold|write <store-path> …\n".utf8))
    exit(2)
}
let url = URL(fileURLWithPath: arguments[2])

do {
    switch arguments[1] {
    case "save-loop":
        let store = try await FileRepository<FixtureEntity>(fileURL: url)
        say("ready")
        var next = Int(arguments[3]) ?? 0
        while true {
            if next % 7 == 0 {
                let batch = (next..<(next + 5)).map(FixtureEntity.make)
                try await store.save(contentsOf: batch)
                for entity in batch { say("\(entity.id)") }
                next += 5
            } else {
                try await store.save(FixtureEntity.make(next))
                say("\(next)")
                next += 1
            }
        }
    case "hold":
        let store = try await FileRepository<FixtureEntity>(fileURL: url)
        say("opened")
        _ = FileHandle.standardInput.readDataToEndOfFile()
        try await store.close()
        say("closed")
    case "write":
        let first = Int(arguments[3]) ?? 0
        let count = Int(arguments[4]) ?? 0
        let store = try await FileRepository<FixtureEntity>(
            fileURL: url, options: FileRepository.Options(lockWait: .seconds(30)))
        for id in first..<(first + count) { try await store.save(FixtureEntity.make(id)) }
        try await store.close()
        say("done")
    case "migrate":
        say("opening")
        let store = try await FileRepository<FixtureEntityV2>(
            fileURL: url, migrations: FixtureEntityV2.migrations())
        try await store.close()
        say("migrated")
    case "replace-loop":
        // Four writers replace their own 20 entities over and over, so dead records pile up
        // and compaction runs every few dozen saves, and group commits carry several records.
        let options = FileRepository<FixtureEntity>.Options(compactionThreshold: 16)
        let store = try await FileRepository<FixtureEntity>(fileURL: url, options: options)
        let start = Int(arguments[3]) ?? 0
        say("ready")
        try await replaceForever(in: store, writers: 4, firstRevision: start)
    case "offline-first":
        let device = URL(fileURLWithPath: arguments[2])
        let remote = try await FileRepository<FixtureEntity>(fileURL: URL(fileURLWithPath: arguments[3]))
        let local = try await FileRepository<FixtureEntity>(fileURL: device.appending(path: "device.store"))
        let outbox = try await Outbox<FixtureEntity>(fileURL: device.appending(path: "device.outbox"))
        let notes = remote.offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins)
        say("ready")
        var next = Int(arguments[4]) ?? 0
        while true {
            switch next % 9 {
            case 0:
                let batch = (next..<(next + 3)).map(FixtureEntity.make)
                try await notes.save(contentsOf: batch)
                for entity in batch { say("\(entity.id)") }
                next += 3
            case 4:
                // A save, then a later change to it: the queued one is superseded.
                try await notes.save(FixtureEntity.make(next, revision: 1))
                try await notes.save(FixtureEntity.make(next))
                say("\(next)")
                next += 1
            default:
                try await notes.save(FixtureEntity.make(next))
                say("\(next)")
                next += 1
            }
            if next % 5 == 0 { try await notes.sync() }
        }
    case "offline-first-http":
        guard arguments.count == 7, let step = _OfflineFirstStep(rawValue: arguments[4]),
            let occurrence = Int(arguments[5]), let first = Int(arguments[6]),
            let api = URL(string: arguments[3])
        else {
            say("usage: offline-first-http <device-dir> <api-url> <step> <occurrence> <first-id>")
            exit(2)
        }
        try await offlineFirstOverHTTP(
            device: URL(fileURLWithPath: arguments[2]), api: api, step: step, occurrence: occurrence,
            first: first)
    case "offline-first-fastapi":
        guard let run = FastAPIRun(arguments.dropFirst(2)) else {
            say(
                "usage: offline-first-fastapi <device-dir> <tasks-url> <step|answer> <occurrence> <first-number> <first-change> <changes> <seed>"
            )
            exit(2)
        }
        try await offlineFirstOverFastAPI(run)
    case "sqlite-concurrent-saves":
        try await saveConcurrentlyIntoSQLite(at: url, firstRevision: Int(arguments[3]) ?? 0)
    case "sqlite-save-loop":
        try await saveForeverIntoSQLite(at: url, firstID: Int(arguments[3]) ?? 0)
    case "sqlite-write":
        try await writeIntoSQLiteAndClose(
            at: url, firstID: Int(arguments[3]) ?? 0, count: Int(arguments[4]) ?? 0)
    case "sqlite-open-at-once":
        try await openSQLiteWhenToldAndSave(at: url, id: Int(arguments[3]) ?? 0)
    case "sqlite-open":
        try await openSQLiteAndClose(at: url)
    case "sqlite-open-indexed":
        try await openSQLiteAndClose(at: url, as: IndexedFixtureEntity.self)
    case "offline-first-feed":
        try await offlineFirstOverSQLiteFeed(
            device: url, remote: arguments[3], firstID: arguments.count > 4 ? Int(arguments[4]) ?? 0 : 0)
    case "offline-first-sqlite":
        guard arguments.count == 7, let first = Int(arguments[4]), let seed = UInt64(arguments[5]) else {
            say("usage: offline-first-sqlite <device-dir> <remote-path> <first-id> <seed> <policy>")
            exit(2)
        }
        try await offlineFirstInSQLite(
            device: url, remote: arguments[3], firstID: first, seed: seed, policy: arguments[6])
    case "sync-group-sqlite":
        guard arguments.count == 7, let first = Int(arguments[4]), let seed = UInt64(arguments[5]) else {
            say("usage: sync-group-sqlite <device-dir> <remote-dir> <first-id> <seed> <app|extension>")
            exit(2)
        }
        try await syncGroupInSQLite(
            device: url, remote: URL(fileURLWithPath: arguments[3]), firstID: first, seed: seed,
            role: arguments[6])
    case "offline-first-endpoint":
        guard arguments.count == 8, let step = _OfflineFirstStep(rawValue: arguments[5]),
            let occurrence = Int(arguments[6]), let first = Int(arguments[7])
        else {
            say(
                "usage: offline-first-endpoint <device-dir> <conninfo> <table> <step> <occurrence> <first-id>"
            )
            exit(2)
        }
        try await offlineFirstOverSyncEndpoint(
            device: url, connection: arguments[3], table: arguments[4], step: step, occurrence: occurrence,
            first: first)
    case "postgres-upgrade":
        guard arguments.count == 5, let killAt = Int(arguments[4]) else {
            say("usage: postgres-upgrade <conninfo> <table> <kill-at>")
            exit(2)
        }
        try await upgradePostgresUntilKilled(connection: arguments[2], table: arguments[3], killAt: killAt)
    case "postgres-open-indexed":
        guard arguments.count == 4 else {
            say("usage: postgres-open-indexed <conninfo> <table>")
            exit(2)
        }
        try await openPostgresIndexed(connection: arguments[2], table: arguments[3])
    case "offline-first-endpoint-sync":
        guard arguments.count == 5 else {
            say("usage: offline-first-endpoint-sync <device-dir> <conninfo> <table>")
            exit(2)
        }
        try await syncOnceOverSyncEndpoint(device: url, connection: arguments[3], table: arguments[4])
    case "copy-of-record":
        let local = InMemoryRepository<FixtureEntity>()
        switch arguments[3] {
        case "writeThrough": _ = local.writeThrough(to: RecordKeeper())
        case "fallback": _ = local.fallback(to: RecordKeeper())
        default: _ = local.writeThrough(to: RecordKeeper().retrying(.default).timeout(.seconds(5)).observed())
        }
        say("built")
    default:
        FileHandle.standardError.write(Data("unknown command \(arguments[1])\n".utf8))
        exit(2)
    }
} catch let error as RepositoryError where error.code == .locked {
    say("locked")
    say("error: \(error)")
    exit(3)
} catch {
    say("error: \(error)")
    exit(1)
}
