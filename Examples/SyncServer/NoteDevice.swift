import ExampleSupport
import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesSQLite

/// One device: its own files in its own directory (`notes.sqlite`, the local store with the
/// outbox beside it in the same database, `Outbox(in:)`, so a change and its row are one
/// transaction; the feed's cursor beside the database in `notes.sqlite.outbox-note.cursor`),
/// and the offline-first stack over them and the server.
///
/// It syncs only when asked, so the story decides which device syncs when. A restart closes
/// both files, as an app that quits does, and opens them again.
@MainActor final class NoteDevice {
    /// The stack's type: the retried HTTP remote, the SQLite store beside it.
    typealias Stack = OfflineFirstRepository<RetryingRepository<HTTPRepository<Note>>, SQLiteRepository<Note>>

    /// The device's name, such as `phone`; also its directory's name.
    let name: String
    /// The device's directory.
    let directory: URL
    /// The device's view of the server.
    let remote: RetryingRepository<HTTPRepository<Note>>
    /// The local store, `notes.sqlite`.
    private(set) var local: SQLiteRepository<Note>
    /// The changes waiting for the server, in `notes.sqlite` beside the notes.
    private(set) var outbox: Outbox<Note>
    /// What the app reads and writes.
    private(set) var notes: Stack

    /// Opens the device `name` in `directory/name`, reaching the server at `serverURL`
    /// through `network`.
    ///
    /// - Throws: the file system's error when the directory cannot be made; what opening
    ///   `notes.sqlite` and its outbox throws.
    init(name: String, in directory: URL, serverURL: URL, network: DeviceNetwork) async throws {
        self.name = name
        self.directory = directory.appendingPathComponent(name, isDirectory: true)
        // Retried as an app would: a lost answer is sent again at once, with its key.
        remote = HTTPRepository<Note>(
            baseURL: serverURL, configuration: .init(changeFeed: .changesEndpoint()), transport: network
        ).retrying(RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), seed: 1))
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        (local, outbox) = try await Self.open(in: self.directory)
        notes = remote.offlineFirst(local: local, outbox: outbox, automaticSync: nil)
    }

    /// The device's file `name`.
    func file(_ name: String) -> URL {
        directory.appendingPathComponent(name, isDirectory: false)
    }

    /// The cursor file the outbox keeps beside the database (see `Outbox(in:)`).
    var cursorFile: URL { file("notes.sqlite.outbox-note.cursor") }

    /// Quits and starts again: closes the outbox and the local store, then opens both from
    /// the same files and makes the stack again.
    ///
    /// - Throws: what closing or opening the files throws.
    func restart() async throws {
        try await close()
        (local, outbox) = try await Self.open(in: directory)
        notes = remote.offlineFirst(local: local, outbox: outbox, automaticSync: nil)
    }

    /// Closes the outbox and the local store, as an app that quits leaves them.
    ///
    /// - Throws: the first error of the two closes; the second is tried either way.
    func close() async throws {
        try await Self.close(outbox, local)
    }

    /// Closes `outbox`, then `local`, whose connection the outbox uses (the app's, or the
    /// share extension's).
    ///
    /// - Throws: the first error of the two closes; the second is tried either way.
    static func close(_ outbox: Outbox<Note>, _ local: SQLiteRepository<Note>) async throws {
        try await withCleanup {
            try await outbox.close()
        } cleanup: {
            try await local.close()
        }
    }

    /// Opens `notes.sqlite` in `directory`, then the outbox in it; closes the store when the
    /// outbox fails to open. The share extension opens the same files so, beside the app.
    static func open(in directory: URL) async throws -> (SQLiteRepository<Note>, Outbox<Note>) {
        let local = try await SQLiteRepository<Note>(
            fileURL: directory.appendingPathComponent("notes.sqlite", isDirectory: false))
        do {
            let outbox = try await Outbox(in: local)
            return (local, outbox)
        } catch {
            try await local.close()
            throw error
        }
    }
}
