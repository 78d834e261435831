import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The crash fixture, run as a real child process.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: each instance is driven by one test task.
    /// The running fixture.
    public let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    private var buffered = Data()

    /// Starts `RepositoriesCrashFixture` with `arguments`.
    public init(_ arguments: [String]) throws {
        process.executableURL = try Self.fixtureURL()
        process.arguments = arguments
        process.standardOutput = output
        process.standardInput = input
        try process.runAlone()
        // A child that stalls must fail its test, not hang the suite: after five minutes it
        // is killed, its output ends, and whoever waits on it sees that. (Two minutes were
        // too few for ten children opening one new SQLite file at once, in CI's whole suite
        // on two cores.)
        DispatchQueue.global().asyncAfter(deadline: .now() + 300) { [weak self] in
            guard let self, process.isRunning else { return }
            Foundation.kill(process.processIdentifier, SIGKILL)
        }
    }

    /// Finds the fixture beside the test binary (`swift build` puts products side by side).
    public static func fixtureURL() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appending(path: "RepositoriesCrashFixture")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw FixtureMissing()
    }

    /// The fixture binary is not where the test binary is.
    public struct FixtureMissing: Error, CustomStringConvertible {
        /// What is missing and how to build it.
        public var description: String {
            "RepositoriesCrashFixture was not found beside the test binary; run `swift build --build-tests` first"
        }
    }

    /// Reads lines until one equals `line`; returns every line read, or throws at end of output.
    ///
    /// The read blocks, so it runs on a thread of its own: a test waiting on its child never
    /// holds one of the cooperative pool's threads (two of them on a two-core machine), which
    /// every other test running meanwhile needs.
    @discardableResult
    public func waitForLine(_ line: String) async throws -> [String] {
        try await offThePool { try self.readUntil(line) }
    }

    private func readUntil(_ line: String) throws -> [String] {
        var lines: [String] = []
        while true {
            while let newline = buffered.firstIndex(of: 0x0A) {
                let text = String(decoding: buffered[buffered.startIndex..<newline], as: UTF8.self)
                buffered.removeSubrange(buffered.startIndex...newline)
                lines.append(text)
                if text == line { return lines }
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw UnexpectedEnd(expected: line, got: lines) }
            buffered.append(chunk)
        }
    }

    /// The child's output ended before the line awaited.
    public struct UnexpectedEnd: Error, CustomStringConvertible {
        var expected: String
        var got: [String]
        /// What was awaited and what was printed.
        public var description: String { "the child ended before printing \(expected); it printed \(got)" }
    }

    /// Kills the child with SIGKILL and returns the complete lines it printed.
    public func kill() async -> [String] {
        Foundation.kill(process.processIdentifier, SIGKILL)
        return await offThePool {
            self.process.waitUntilExit()
            return self.remainingLines()
        }
    }

    /// Closes the child's standard input, which a child waiting for the end of its input
    /// takes as its signal to go on.
    public func closeInput() {
        try? input.fileHandleForWriting.close()  // the child may already have exited
    }

    /// Closes the child's standard input, waits for it to exit, and returns its remaining lines.
    public func finish() async -> [String] {
        closeInput()
        return await offThePool {
            self.process.waitUntilExit()
            return self.remainingLines()
        }
    }

    private func remainingLines() -> [String] {
        buffered.append(output.fileHandleForReading.readDataToEndOfFile())
        // A line cut by the kill has no newline; it was not acknowledged.
        guard let last = buffered.lastIndex(of: 0x0A) else { return [] }
        return String(decoding: buffered[...last], as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

extension ChildProcess {
    /// How many times a crash test kills its child: at least 20, as CI runs it;
    /// the environment variable `REPOSITORIES_CRASH_KILLS` asks for more.
    public static var killCount: Int {
        max(20, Int(ProcessInfo.processInfo.environment["REPOSITORIES_CRASH_KILLS"] ?? "") ?? 20)
    }
}
