import Foundation
import Repositories
import RepositoriesSQLite

/// The phone's share extension: on an iPhone, another process, which opens the app's
/// `notes.sqlite` in the app group's container with the outbox in it, saves what the user
/// shared and quits, while the app runs. Here it runs in the example's process, on SQLite
/// connections of its own, exactly as a second process opens the file: every change either
/// makes reads what the other wrote inside the transaction that writes it (`Outbox(in:)`).
@MainActor struct ShareExtension {
    /// The extension's own connection to the device's `notes.sqlite`.
    let local: SQLiteRepository<Note>
    /// The outbox in it, shared with the app's.
    let outbox: Outbox<Note>
    /// What the extension writes through; it never syncs (the app does).
    let notes: NoteDevice.Stack

    /// Opens `device`'s files a second time, beside the app's instances.
    ///
    /// - Throws: what opening `notes.sqlite` and its outbox throws.
    init(of device: NoteDevice) async throws {
        (local, outbox) = try await NoteDevice.open(in: device.directory)
        notes = device.remote.offlineFirst(local: local, outbox: outbox, automaticSync: nil)
    }

    /// Closes the extension's outbox and store, as its process does when it quits.
    ///
    /// - Throws: the first error of the two closes; the second is tried either way.
    func close() async throws {
        try await NoteDevice.close(outbox, local)
    }
}
