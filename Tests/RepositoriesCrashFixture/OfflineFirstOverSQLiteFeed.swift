import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport

/// `offline-first-feed <device-dir> <remote-path> <first-id>`: a device (a file store and its
/// outbox) over a SQLite remote with a change feed, saving one entity of its own and syncing,
/// forever, until it is killed; prints each ID once its save returned, and "synced" after each
/// sync. Most of each sync is
/// the pull of what the parent wrote to the remote before starting it: pages applied to the
/// local store and their cursor kept, where the kill lands.
func offlineFirstOverSQLiteFeed(device: URL, remote remotePath: String, firstID: Int) async throws {
    let remote = try await SQLiteRepository<FixtureEntity>(fileURL: URL(fileURLWithPath: remotePath))
    let local = try await FileRepository<FixtureEntity>(fileURL: device.appending(path: "device.store"))
    let outbox = try await Outbox<FixtureEntity>(fileURL: device.appending(path: "device.outbox"))
    let notes = remote.offlineFirst(
        local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
    say("ready")
    var next = firstID
    while true {
        try await notes.save(FixtureEntity.make(next))
        say("\(next)")
        next += 1
        try await notes.sync()
        say("synced")
    }
}
