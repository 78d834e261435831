import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The share extension: on an iPad, another process, which opens the app's
/// `inspections.sqlite` in the app group's container, saves the finding the user shared (a
/// photo's caption) on the inspection open in the app, and quits while the app runs. Here it
/// is this example's own executable, started again as a child process with
/// `--share-extension DIRECTORY INSPECTION FINDING NOTE`: a real second process, on SQLite
/// connections of its own. It never syncs; the app's sync sends its finding, in the group's
/// order, after the inspection it names.
enum ShareExtensionProcess {
    /// The flag that starts the executable as the share extension.
    static let flag = "--share-extension"

    /// The share extension's whole run: opens the device's stack, saves the finding, closes.
    ///
    /// - Throws: what opening the stack or saving throws.
    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 4, let inspection = Int(arguments[1]), let id = Int(arguments[2]) else {
            throw ExtensionUsage()
        }
        // The extension never syncs: its API stays unreachable, and nothing calls it.
        let device = try await FieldDevice(
            in: URL(fileURLWithPath: arguments[0]), api: InspectionsAPI(online: false))
        do {
            let finding = Finding(id: id, inspectionID: inspection, note: arguments[3])
            try await device.findings.save(finding)
            let waiting = try await device.findings.outbox.changes().count
            print(
                "share extension (pid \(ProcessInfo.processInfo.processIdentifier)): saved finding \(id) "
                    + "\"\(finding.note)\" on inspection \(inspection); the findings table has \(waiting) changes waiting"
            )
        } catch {
            try await device.close()
            throw error
        }
        try await device.close()
    }

    /// Starts `executable` as the share extension on `directory`'s device and waits for it to
    /// quit, killing it after two minutes.
    ///
    /// - Returns: what it printed, line by line.
    /// - Throws: ``ExtensionFailed`` when it exits with an error.
    ///
    /// `start` starts the process (`Process.run()`; a test process that starts children from
    /// several tests at once passes one that starts them one at a time).
    static func launch(
        _ executable: URL, directory: URL, inspection: Int, finding: Int, note: String,
        start: (Process) throws -> Void = { try $0.run() }
    ) async throws -> [String] {
        let process = Process()
        process.executableURL = executable
        process.arguments = [flag, directory.path, String(inspection), String(finding), note]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let ended = AsyncStream<Void> { continuation in
            process.terminationHandler = { _ in continuation.finish() }
        }
        // Read on a thread of its own while the extension runs, so however much it prints (a
        // crash's backtrace) it never blocks on a full pipe.
        let handle = output.fileHandleForReading
        let reading = AsyncStream<Data> { continuation in
            Thread {
                continuation.yield(handle.readDataToEndOfFile())
                continuation.finish()
            }.start()
        }
        try start(process)
        // An extension that hangs (waiting for a lock, say) is stopped, not waited for forever.
        let pid = process.processIdentifier
        let deadline = Task {
            try await Task.sleep(for: .seconds(120))
            kill(pid, SIGKILL)
        }
        for await _ in ended {}
        deadline.cancel()
        var text = ""
        for await data in reading { text = String(decoding: data, as: UTF8.self) }
        let lines = text.split(separator: "\n").map(String.init)
        guard process.terminationStatus == 0 else {
            throw ExtensionFailed(status: process.terminationStatus, output: lines)
        }
        return lines
    }

    /// The share extension was started with arguments it does not take.
    struct ExtensionUsage: Error, CustomStringConvertible {
        var description: String {
            "usage: Inspections \(ShareExtensionProcess.flag) DEVICE-DIRECTORY INSPECTION-ID FINDING-ID NOTE"
        }
    }

    /// The share extension exited with an error.
    struct ExtensionFailed: Error, CustomStringConvertible {
        var status: Int32
        var output: [String]
        var description: String {
            "the share extension exited with status \(status): \(output.joined(separator: " / "))"
        }
    }
}
