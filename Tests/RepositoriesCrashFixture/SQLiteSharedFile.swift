import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport

/// The `sqlite-save-loop` mode: one process of several sharing a database file. Opens a
/// `SQLiteRepository`, prints "ready", then saves new entities from `firstID` on forever (every
/// fifth call a batch of three), printing each ID once the call that saved it returned.
func saveForeverIntoSQLite(at url: URL, firstID: Int) async throws {
    let store = try await SQLiteRepository<FixtureEntity>(fileURL: url)
    say("ready")
    var next = firstID
    var call = 0
    while true {
        call += 1
        let ids = call % 5 == 0 ? Array(next..<(next + 3)) : [next]
        if ids.count == 1 {
            try await store.save(FixtureEntity.make(next))
        } else {
            try await store.save(contentsOf: ids.map(FixtureEntity.make))
        }
        for id in ids { say("\(id)") }
        next += ids.count
    }
}

/// The `sqlite-write` mode: the process that comes and goes. Opens a `SQLiteRepository`,
/// saves `count` new entities from `firstID` on one by one, printing each ID once its save
/// returned, closes the store (which, when it believes it is the file's last user,
/// checkpoints the log and removes it) and prints "done".
func writeIntoSQLiteAndClose(at url: URL, firstID: Int, count: Int) async throws {
    let store = try await SQLiteRepository<FixtureEntity>(fileURL: url)
    for id in firstID..<(firstID + count) {
        try await store.save(FixtureEntity.make(id))
        say("\(id)")
    }
    try await store.close()
    say("done")
}

/// The `sqlite-open-at-once` mode: prints "ready", waits until its standard input closes (the
/// parent closes every child's at the same moment), then opens the database, which may be
/// new, saves `FixtureEntity.make(id)`, closes it and prints "done".
func openSQLiteWhenToldAndSave(at url: URL, id: Int) async throws {
    say("ready")
    _ = FileHandle.standardInput.readDataToEndOfFile()
    let store = try await SQLiteRepository<FixtureEntity>(fileURL: url)
    try await store.save(FixtureEntity.make(id))
    try await store.close()
    say("done")
}
