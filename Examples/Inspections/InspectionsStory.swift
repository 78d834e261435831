import ExampleSupport
import Foundation
import Repositories

/// The run: an inspector in the field saves two inspections with their findings, the second
/// with its site left blank by mistake; the share extension, a second process, adds a finding
/// to the first inspection; the badge counts every change of both types and both processes.
/// The group's sync sends the inspections, then the findings: the API refuses the blank
/// inspection, and its finding is held back, saying why, instead of being sent to fail. The
/// inspector fixes the site; the next sync sends the inspection, then its finding. The story
/// checks that the API never had to refuse a finding for want of its inspection, that no
/// finding request came before its inspection's, and that the device and the API agree.
@MainActor struct InspectionsStory: ExampleStory {
    let api: InspectionsAPI
    let device: FieldDevice
    /// The device's directory, which the share extension opens too.
    let directory: URL
    /// The executable started as the share extension: this example's own.
    let extensionExecutable: URL
    /// How the share extension's process is started: `Process.run()`.
    let startProcess: @Sendable (Process) throws -> Void

    /// Opens the device in `workspace`, with the share extension this executable.
    init(options: ExampleOptions, workspace: ExampleWorkspace) async throws {
        guard let executable = Bundle.main.executableURL else {
            throw StoryFailure(
                "this process cannot tell where its executable is, to start the share extension")
        }
        try await self.init(options: options, workspace: workspace, extensionExecutable: executable)
    }

    /// Opens the device in `workspace`, with `extensionExecutable` started as the share
    /// extension by `startProcess` (a test gives the example's executable, built beside it,
    /// and starts it while no other test starts a process: Foundation's `Process.run()` is not
    /// safe to call from two threads at once on Linux).
    ///
    /// - Throws: ``ExampleUsageError`` for `--api` (the example is its own API) and for a
    ///   `--data-dir` that holds an earlier run's device (its API, in memory, is gone); what
    ///   opening the device throws.
    init(
        options: ExampleOptions, workspace: ExampleWorkspace, extensionExecutable: URL,
        startProcess: @escaping @Sendable (Process) throws -> Void = { try $0.run() }
    ) async throws {
        if let apiURL = options.apiURL {
            throw ExampleUsageError(
                message: "--api \(apiURL.absoluteString): Inspections simulates its own two APIs in process")
        }
        if FileManager.default.fileExists(atPath: workspace.file("inspections.sqlite").path) {
            throw ExampleUsageError(
                message: "--data-dir: \(workspace.directory.path) holds an earlier run's device, whose API "
                    + "(in memory) is gone; give an empty directory")
        }
        api = InspectionsAPI(online: !options.offline)
        directory = workspace.directory
        self.extensionExecutable = extensionExecutable
        self.startProcess = startProcess
        device = try await FieldDevice(in: workspace.directory, api: api)
    }

    /// Closes the device.
    func close() async throws {
        try await device.close()
    }

    /// Prints the whole story.
    func tell() async throws {
        print(
            "Inspections: one SyncGroup for inspections and their findings in inspections.sqlite; "
                + "the app and its share extension (a second process) write it; "
                + "the simulated API\(api.network.isOnline ? "" : " (offline)") refuses a finding whose inspection it lacks"
        )
        try await inspect()
        try await shareFromAnotherProcess()
        try await syncInOrder()
        try await fixAndRelease()
        try await verify()
    }

    /// The inspector saves two inspections and their findings; nothing is sent yet.
    private func inspect() async throws {
        Console.heading("In the field: two inspections and their findings, saved on the device")
        try await device.inspections.save(Inspection(id: 1, site: "Pier 4, north crane"))
        try await device.findings.save(contentsOf: [
            Finding(id: 101, inspectionID: 1, note: "Corroded bolt on the boom"),
            Finding(id: 102, inspectionID: 1, note: "Loose railing at the ladder"),
        ])
        try await device.inspections.save(Inspection(id: 2, site: ""))
        try await device.findings.save(Finding(id: 201, inspectionID: 2, note: "Cracked slab by door 3"))
        print("Saved inspection 1 (Pier 4, north crane) with findings 101 and 102.")
        print("Saved inspection 2 with its site left blank by mistake, and its finding 201.")
    }

    /// The share extension, another process, saves a finding on inspection 1; the app's badge
    /// counts it with its own changes.
    private func shareFromAnotherProcess() async throws {
        Console.heading("The share extension, a second process, adds a finding")
        let said = try await ShareExtensionProcess.launch(
            extensionExecutable, directory: directory, inspection: 1, finding: 103,
            note: "Photo: rust under the cab", start: startProcess)
        for line in said { print("  \(line)") }
        let status = try await badge(where: { $0.pending == 6 })
        print("The app's badge: \(status) (both types, both processes)")
    }

    /// The group's sync: the inspections, then the findings; the refused inspection holds
    /// its finding back. Offline, the sync fails first and the changes wait.
    private func syncInOrder() async throws {
        Console.heading("The group syncs: inspections first, then findings")
        if !api.network.isOnline {
            do {
                try await device.group.sync()
                throw StoryFailure("a sync went through with the network off")
            } catch let error as RepositoryError where error.code == .unavailable {
                print("Sync postponed, the API cannot be reached: \(try await badge(where: { _ in true }))")
            }
            api.network.goOnline()
            print("The network is back.")
        }
        let report = try await device.group.sync()
        print("sync: \(report.sent) sent, \(report.confirmed) confirmed, \(report.rejections.count) refused")
        for line in api.log { print("  API: \(line)") }
        guard case .pending(let attempts, let error?) = try await device.findings.status(of: 201),
            error.code == .heldBack
        else {
            throw StoryFailure("finding 201 was not held back behind its refused inspection")
        }
        print("finding 201: held back, \(attempts) tries: \(error.reason)")
        print("The badge: \(try await badge(where: { $0.rejected == 1 && $0.heldBack == 1 }))")
    }

    /// The inspector fixes the site; the next sync sends the inspection, then its finding.
    private func fixAndRelease() async throws {
        Console.heading("The inspector fills in the site; the finding goes after it")
        let before = api.log.count
        try await device.inspections.save(Inspection(id: 2, site: "Warehouse B"))
        let report = try await device.group.sync()
        print("sync: \(report.sent) sent, \(report.confirmed) confirmed, \(report.rejections.count) refused")
        for line in api.log.dropFirst(before) { print("  API: \(line)") }
        print("The badge: \(try await badge(where: { $0.pending == 0 }))")
    }

    /// Checks what the story claims: the API never refused a finding for want of its
    /// inspection, no finding request came before its inspection's, and the device and the API
    /// hold the same inspections and findings.
    ///
    /// - Throws: ``StoryFailure`` when any of it does not hold.
    private func verify() async throws {
        Console.heading("Checked")
        guard api.orphansRefused == 0 else {
            throw StoryFailure("the API refused \(api.orphansRefused) findings for want of their inspection")
        }
        let serverInspections = try await api.inspectionStore.fetchAll().sorted { $0.id < $1.id }
        let serverFindings = try await api.findingStore.fetchAll().sorted { $0.id < $1.id }
        guard try await device.inspectionTable.fetchAll().sorted(by: { $0.id < $1.id }) == serverInspections,
            try await device.findingTable.fetchAll().sorted(by: { $0.id < $1.id }) == serverFindings,
            serverInspections.count == 2, serverFindings.count == 4
        else {
            throw StoryFailure("the device and the API do not hold the same 2 inspections and 4 findings")
        }
        print(
            "The API holds 2 inspections and 4 findings, as the device does; "
                + "it refused 0 findings for want of their inspection.")
    }

    /// The group's badge once `condition` holds (the stream counts both members; the share
    /// extension's commit reaches it through SQLite's data_version).
    ///
    /// - Throws: ``StoryFailure`` when it does not hold within five minutes (it holds at once
    ///   here; a machine whose every core is busy, as CI's whole test run keeps two, can keep a
    ///   task waiting for minutes).
    private func badge(where condition: @escaping @Sendable (SyncGroupStatus) -> Bool) async throws
        -> SyncGroupStatus
    {
        let statuses = device.group.status()
        let watching = Task { () -> SyncGroupStatus? in
            for await status in statuses where condition(status) { return status }
            return nil
        }
        let deadline = Task {
            try await Task.sleep(for: .seconds(300))
            watching.cancel()
        }
        defer { deadline.cancel() }
        guard let status = await watching.value else {
            throw StoryFailure("the badge did not reach what the story expects within five minutes")
        }
        return status
    }
}
