import ExampleSupport
import Foundation
import Repositories
import RepositoriesHTTP

/// The run: the phone writes three notes and syncs; the tablet's first sync reads the feed
/// from the start; the tablet edits one note and deletes another, and the answer to one of
/// its writes is lost, so the write is sent again and answered from its key; the phone's next
/// sync pulls only those two changes in one request; a sync with nothing to do is one
/// request. The story checks at the server that each change was applied once, and that both
/// devices and the server hold the same notes. The phone restarts, and its first sync is
/// still incremental. Last, the phone's share extension opens the phone's files beside the
/// running app and saves a note: the app's badge shows it, and the app's sync sends it once.
@MainActor struct SyncServerStory: ExampleStory {
    /// Where the devices reach the server; a reserved name (RFC 2606) no request leaves the
    /// process for.
    static let serverURL = URL(string: "https://sync.example/notes")!

    /// The server's store: an `InMemoryRepository`, counting the writes it applies.
    let store: CountingStore<InMemoryRepository<Note>>
    /// The server: the store's change feed and its writes, once per idempotency key.
    let server: SyncEndpoint<CountingStore<InMemoryRepository<Note>>>
    /// The network both devices reach the server through.
    let network: DeviceNetwork
    /// The device that writes the notes.
    let phone: NoteDevice
    /// The device that edits them.
    let tablet: NoteDevice

    /// Starts the server and opens both devices in `workspace`, each in its own subdirectory.
    ///
    /// - Throws: ``ExampleUsageError`` for `--api` (the example is its own server) and for a
    ///   `--data-dir` that holds the devices of an earlier run (their server, in memory, is
    ///   gone); what opening a device's files throws.
    init(options: ExampleOptions, workspace: ExampleWorkspace) async throws {
        if let apiURL = options.apiURL {
            throw ExampleUsageError(
                message: "--api \(apiURL.absoluteString): SyncServer is its own server, in process; "
                    + "a device reaches a deployed one with HTTPRepository(baseURL:), "
                    + "as Docs/SyncServer.md shows")
        }
        for name in ["phone", "tablet"] {
            let earlier = workspace.directory.appendingPathComponent(
                "\(name)/notes.sqlite", isDirectory: false)
            if FileManager.default.fileExists(atPath: earlier.path) {
                throw ExampleUsageError(
                    message: "--data-dir: \(workspace.directory.path) holds the \(name) of an earlier run, "
                        + "whose server (in memory) is gone; give an empty directory")
            }
        }
        store = CountingStore(InMemoryRepository<Note>())
        server = SyncEndpoint(store: store)
        network = DeviceNetwork(
            to: SyncEndpointTransport(server, at: Self.serverURL.path), online: !options.offline)
        phone = try await NoteDevice(
            name: "phone", in: workspace.directory, serverURL: Self.serverURL, network: network)
        do {
            tablet = try await NoteDevice(
                name: "tablet", in: workspace.directory, serverURL: Self.serverURL, network: network)
        } catch {
            try await phone.close()
            throw error
        }
    }

    /// Closes both devices' files.
    func close() async throws {
        try await withCleanup {
            try await phone.close()
        } cleanup: {
            try await tablet.close()
        }
    }

    /// Prints the whole story.
    func tell() async throws {
        let offline = network.isOnline ? "" : " (offline)"
        print(
            "SyncServer: a sync server in Swift, SyncEndpoint over an InMemoryRepository<Note> "
                + "(a service would use PostgresRepository: Docs/SyncServer.md), at \(Self.serverURL.absoluteString)"
                + "\(offline); two devices, phone/ and tablet/, each with notes.sqlite (its notes and its outbox), "
                + "sync with it through HTTPRepository's change feed")
        try await phoneWrites()
        try await tabletReadsTheFeed()
        try await tabletEditsAndAnAnswerIsLost()
        try await phoneCatchesUp()
        try await nothingToDo()
        try await verifyConverged(Note.afterTheTablet)
        try await phoneRestarts()
        try await verifyConverged(Note.atTheEnd)
        try await shareExtensionSaves()
        try await verifyConverged(Note.withTheShare)
    }

    /// The phone saves three notes and syncs; the server applies each once. Offline from the
    /// start (`--offline`), the notes wait in the phone's outbox and the server has nothing,
    /// until the network comes up.
    ///
    /// - Throws: ``StoryFailure`` when the server does not hold the notes, or did not apply
    ///   each once.
    private func phoneWrites() async throws {
        Console.heading("The phone writes 3 notes and syncs")
        try await phone.notes.save(contentsOf: Note.written)
        let waiting = try await phone.outbox.changes().count
        print(
            "phone: saves \(Note.written.map(\.line).joined(separator: ", ")) "
                + "(\(Console.changesWaiting(waiting)))")
        if !network.isOnline {
            try await syncPostponed(phone)
            guard try await store.count() == 0, store.applications.isEmpty else {
                throw StoryFailure("the server took a write while the network was off")
            }
            print("The server has nothing yet.")
            network.goOnline()
            print("The network comes up.")
        }
        try await sync(phone, "syncs: its 3 notes go up")
        let applied = store.applications
        let onServer = try await store.fetchAll().sorted { $0.id < $1.id }
        guard onServer == Note.written, applied.count == 3, applied.allSatisfy({ !$0.replayed }),
            Set(applied.map(\.key)).count == 3
        else {
            throw StoryFailure(
                "the server holds \(onServer.map(\.line)) after the writes "
                    + "\(applied.map(\.fingerprint)), not the 3 notes applied once each")
        }
        print(
            "Checked at the server: it applied each note once (\(applied.map(\.fingerprint).joined(separator: ", ")), "
                + "3 keys), and holds the 3 notes.")
    }

    /// The tablet's first sync: it has no cursor yet, so it reads the feed from the start and
    /// keeps the cursor of the last page beside its outbox.
    ///
    /// - Throws: ``StoryFailure`` when the pull was incremental, or the tablet does not hold
    ///   the phone's notes, or kept no cursor.
    private func tabletReadsTheFeed() async throws {
        Console.heading("The tablet's first sync reads the feed from the start")
        let report = try await sync(tablet, "syncs for the first time")
        guard !report.pullWasIncremental, let reason = report.fullPullReason, report.received == 3,
            try await tablet.local.fetchAll().sorted(by: { $0.id < $1.id }) == Note.written
        else {
            throw StoryFailure(
                "the tablet's first sync did not read the phone's 3 notes in a full pull: \(report)")
        }
        print("A full pull, as a first sync must be: \(reason).")
        guard FileManager.default.fileExists(atPath: tablet.cursorFile.path) else {
            throw StoryFailure("the tablet kept no cursor in \(tablet.cursorFile.lastPathComponent)")
        }
        print(
            "The tablet holds the 3 notes, and kept the feed's cursor in "
                + "tablet/\(tablet.cursorFile.lastPathComponent).")
    }

    /// The tablet edits note 2 and deletes note 3, then syncs; the answer to its first write
    /// is lost after the server applied it, so the retry sends it again with its key, and the
    /// server answers from the key's record.
    ///
    /// - Throws: ``StoryFailure`` when no answer was lost, the resend was not answered from
    ///   its key, or the server did not apply each change exactly once.
    private func tabletEditsAndAnAnswerIsLost() async throws {
        Console.heading("The tablet edits a note and deletes another; an answer is lost")
        guard let old = Note.written.first(where: { $0.id == Note.edited.id }) else {
            throw StoryFailure("no note \(Note.edited.id) to edit")
        }
        try await tablet.notes.save(Note.edited)
        print("tablet: \(old.line) -> \(Note.edited.title)")
        try await tablet.notes.delete(id: 3)
        print("tablet: deletes #3")
        let before = store.applications.count
        network.loseNextWriteAnswer()
        try await sync(tablet, "syncs: its 2 changes go up")
        let applied = store.applications.dropFirst(before)
        let firstTime = applied.filter { !$0.replayed }
        let resent = applied.filter(\.replayed)
        guard let lost = network.lost.first, network.lost.count == 1 else {
            throw StoryFailure("the network lost \(network.lost.count) answers, not the 1 it was told to")
        }
        print(
            "The server applied \(lost); its answer was lost on the way back, and the tablet sent it again.")
        guard network.replayed == [lost], resent.count == 1, let resend = resent.first,
            firstTime.contains(where: { $0.key == resend.key && $0.fingerprint == resend.fingerprint })
        else {
            throw StoryFailure(
                "the resend of \(lost) was not answered from its key: the server answered \(network.replayed) "
                    + "from their keys, and its store replayed \(resent.map(\.fingerprint))")
        }
        print(
            "The resend carried the same Idempotency-Key: answered from the key "
                + "(Idempotent-Replayed: true), not applied.")
        guard firstTime.map(\.fingerprint).sorted() == ["DELETE /3", "PUT /2"],
            Set(firstTime.map(\.key)).count == firstTime.count
        else {
            throw StoryFailure(
                "the server applied \(firstTime.map(\.fingerprint)) for the tablet's edit and delete, "
                    + "not each once")
        }
        print(
            "Checked at the server: each change applied once (\(firstTime.map(\.fingerprint).joined(separator: ", "))), "
                + "\(Console.counted(resent.count, "resend")) answered from its key.")
    }

    /// The phone's next sync asks the feed only for what changed since its cursor: one
    /// request, bringing in the tablet's edit and delete.
    ///
    /// - Throws: ``StoryFailure`` when the pull was not incremental, took more than one
    ///   request, or did not receive the 2 changes.
    private func phoneCatchesUp() async throws {
        Console.heading("The phone syncs: only what changed")
        let sent = network.requests
        let report = try await sync(phone, "syncs: asks the feed for what changed since its cursor")
        guard report.pullWasIncremental, report.requests == 1, network.requests - sent == 1,
            report.received == 2
        else {
            throw StoryFailure(
                "the phone's sync was not an incremental pull of 2 changes in 1 request: \(report), "
                    + "\(network.requests - sent) on the network")
        }
        print("Checked: an incremental pull, 1 request, received 2 (the tablet's edit and delete).")
    }

    /// A sync with nothing to send and nothing changed on the server is one request.
    ///
    /// - Throws: ``StoryFailure`` when it took more than one request or changed anything.
    private func nothingToDo() async throws {
        Console.heading("A sync with nothing to do")
        let sent = network.requests
        let report = try await sync(tablet, "syncs again")
        guard report.pullWasIncremental, report.requests == 1, network.requests - sent == 1, report.sent == 0,
            report.received == 0
        else {
            throw StoryFailure(
                "a sync with nothing to do was not 1 request that changed nothing: \(report), "
                    + "\(network.requests - sent) on the network")
        }
        print("Checked: 1 request, the feed's answer that nothing changed since the cursor.")
    }

    /// The tablet adds a note; the phone restarts (its store and outbox closed, then opened
    /// from the same files), and its first sync is still incremental: the cursor was kept
    /// beside the outbox.
    ///
    /// - Throws: ``StoryFailure`` when the cursor file is missing or the sync after the
    ///   restart is not an incremental pull of the tablet's note in one request.
    private func phoneRestarts() async throws {
        Console.heading("The phone restarts; its next sync is still incremental")
        try await tablet.notes.save(Note.added)
        print("tablet: adds \(Note.added.line)")
        try await sync(tablet, "syncs: the note goes up")
        try await phone.restart()
        print("phone: quits (notes.sqlite and its outbox closed) and starts again from the same files")
        guard FileManager.default.fileExists(atPath: phone.cursorFile.path) else {
            throw StoryFailure("the phone kept no cursor in \(phone.cursorFile.lastPathComponent)")
        }
        let sent = network.requests
        let report = try await sync(
            phone, "syncs from the cursor in phone/\(phone.cursorFile.lastPathComponent)")
        guard report.pullWasIncremental, report.requests == 1, network.requests - sent == 1,
            report.received == 1
        else {
            throw StoryFailure(
                "the phone's first sync after the restart was not an incremental pull of 1 note "
                    + "in 1 request: \(report), \(network.requests - sent) on the network")
        }
        print("Checked: still incremental after the restart, 1 request, received 1 (the tablet's new note).")
    }

    /// The phone's share extension opens the phone's `notes.sqlite` and outbox beside the
    /// running app and saves a note: the app's badge shows it waiting, the app's sync sends it,
    /// and the server applies it once; the tablet then receives it.
    ///
    /// - Throws: ``StoryFailure`` when the app's badge does not show the extension's change
    ///   within 10 seconds, or the server did not apply it once.
    private func shareExtensionSaves() async throws {
        Console.heading("The phone's share extension saves a note while the app runs")
        // The app's badge, subscribed before the extension writes.
        let badge = phone.outbox.pendingChanges()
        let watching = Task { () -> [Int] in
            var seen: [Int] = []
            for await waiting in badge {
                seen = waiting.map(\.id)
                if seen == [Note.shared.id] { break }
            }
            return seen
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(10))
            watching.cancel()
        }
        let share = try await ShareExtension(of: phone)
        try await withCleanup {
            try await share.notes.save(Note.shared)
        } cleanup: {
            try await share.close()
        }
        print(
            "share extension: opens phone/notes.sqlite and its outbox on connections of its own, "
                + "saves \(Note.shared.line), quits")
        let seen = await watching.value
        timeout.cancel()
        guard seen == [Note.shared.id] else {
            throw StoryFailure("the phone's badge showed \(seen) within 10 s, not the share extension's note")
        }
        print(
            "phone: its badge shows 1 change waiting, the share extension's "
                + "(read again once another connection committed to notes.sqlite)")
        let before = store.applications.count
        try await sync(phone, "syncs: the shared note goes up")
        let applied = store.applications.dropFirst(before).filter { !$0.replayed }
        guard applied.map(\.fingerprint) == ["PUT /\(Note.shared.id)"] else {
            throw StoryFailure(
                "the server applied \(applied.map(\.fingerprint)) for the shared note, not it once")
        }
        print("Checked at the server: the share extension's note applied once (PUT /\(Note.shared.id)).")
        try await sync(tablet, "syncs: receives the shared note")
    }

    /// Checks that both devices and the server hold `expected`, that no change waits, and
    /// that the server applied no key twice.
    ///
    /// - Throws: ``StoryFailure`` naming the difference.
    func verifyConverged(_ expected: [Note]) async throws {
        Console.heading("Both devices and the server hold the same notes")
        let onServer = try await store.fetchAll().sorted { $0.id < $1.id }
        row("server", onServer)
        for device in [phone, tablet] {
            let onDevice = try await device.local.fetchAll().sorted { $0.id < $1.id }
            row(device.name, onDevice)
            guard onDevice == onServer else {
                throw StoryFailure(
                    "\(device.name) holds \(onDevice.map(\.line)), the server \(onServer.map(\.line))")
            }
            let waiting = try await device.outbox.changes()
            guard waiting.isEmpty else {
                throw StoryFailure(
                    "\(device.name)'s outbox still holds \(Console.counted(waiting.count, "change"))")
            }
        }
        guard onServer == expected else {
            throw StoryFailure("the server holds \(onServer.map(\.line)), not \(expected.map(\.line))")
        }
        let applied = store.applications.filter { !$0.replayed }
        guard Set(applied.map(\.key)).count == applied.count else {
            throw StoryFailure("the server applied a key twice: \(applied.map(\.key))")
        }
        print(
            "Checked: the phone, the tablet and the server hold the same \(Console.counted(expected.count, "note")); "
                + "both outboxes are empty; the server applied \(Console.counted(applied.count, "write")), "
                + "each under a key of its own.")
    }

    /// Has `device` sync, and prints `what` it did and its report.
    ///
    /// - Throws: ``StoryFailure`` when the sync fails.
    @discardableResult
    private func sync(_ device: NoteDevice, _ what: String) async throws -> SyncReport<Int> {
        let report: SyncReport<Int>
        do {
            report = try await device.notes.sync()
        } catch {
            throw StoryFailure("\(device.name)'s sync failed with the network on: \(error)")
        }
        print("\(device.name) \(what)")
        print("  \(report)")
        return report
    }

    /// Has `device` sync with the network off, and prints that the sync was postponed.
    ///
    /// - Throws: ``StoryFailure`` when the sync went through, or failed otherwise than
    ///   `unavailable`.
    private func syncPostponed(_ device: NoteDevice) async throws {
        do {
            let report = try await device.notes.sync()
            throw StoryFailure("\(device.name) synced with the network off: \(report)")
        } catch let error as RepositoryError where error.code == .unavailable {
            let waiting = try await device.outbox.changes().count
            print(
                "\(device.name): sync postponed, the server cannot be reached; "
                    + Console.changesWaiting(waiting))
        }
    }

    /// One line per place: `phone   #1 Call the plumber · #2 Book the dentist for Tuesday`.
    private func row(_ label: String, _ notes: [Note]) {
        let padded = label.padding(toLength: 7, withPad: " ", startingAt: 0)
        print(padded + (notes.isEmpty ? "(empty)" : notes.map(\.line).joined(separator: " · ")))
    }
}
