import Foundation
import Repositories

/// What an offline-first device keeps on disk for one collection: its local store, a
/// `FileRepository` journal (`NAME.journal`), and its ``Outbox`` of the changes not sent yet
/// (`NAME.outbox`), side by side in one directory.
///
/// ```swift
/// let files = try await DeviceFiles<Todo>(in: workspace.directory, name: "todos")
/// let todos = api.offlineFirst(local: files.local, outbox: files.outbox, conflicts: .lastWriterWins)
/// try await files.close()   // a restart: open them again from the same directory
/// ```
public struct DeviceFiles<Entity: Codable & Identifiable & Sendable>: Sendable
where Entity.ID: Codable & Sendable {
    /// The device's copy of the collection: the remote's last known state, its own changes on top.
    public let local: FileRepository<Entity>
    /// The changes made on the device that the remote has not taken yet.
    public let outbox: Outbox<Entity>

    /// Opens (or creates) `NAME.journal` and `NAME.outbox` in `directory`, creating the
    /// directory when it is missing.
    ///
    /// - Parameters:
    ///   - directory: where the two files are.
    ///   - name: the files' name, before `.journal` and `.outbox`.
    ///   - migrations: the entity's version and the upgrades the journal and the outbox read
    ///     older records through (`local.upgradedRecordCount` says how many of the journal's
    ///     this open upgraded); version 1 by default.
    /// - Throws: the file system's error when the directory cannot be created; what
    ///   `FileRepository` and `Outbox` throw when a file cannot be opened (`locked` when
    ///   another process holds it, `corrupted` with the file untouched,
    ///   `writtenByNewerVersion` when a newer version of the app wrote either file). When the
    ///   outbox fails to open, the journal opened before it is closed again.
    public init(in directory: URL, name: String, migrations: Migrations<Entity> = Migrations()) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let local = try await FileRepository<Entity>(
            fileURL: directory.appendingPathComponent("\(name).journal", isDirectory: false),
            migrations: migrations)
        do {
            outbox = try await Outbox<Entity>(
                fileURL: directory.appendingPathComponent("\(name).outbox", isDirectory: false),
                migrations: migrations)
        } catch {
            try await local.close()
            throw error
        }
        self.local = local
    }

    /// The local store's file name, such as `todos.journal`.
    public var localName: String { local.fileURL.lastPathComponent }
    /// The outbox's file name, such as `todos.outbox`.
    public var outboxName: String { outbox.fileURL.lastPathComponent }

    /// Closes the outbox and the local store, as an app that quits leaves them; opening
    /// them again reads back every change that was acknowledged.
    ///
    /// - Throws: the first error of the two closes; the second is tried either way.
    public func close() async throws {
        try await withCleanup {
            try await outbox.close()
        } cleanup: {
            try await local.close()
        }
    }
}
