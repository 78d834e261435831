import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

/// The repository across real processes: every save a killed writer acknowledged is stored,
/// and two processes with caches over one table never read a stale value once the other's
/// write was announced.
///
/// The children are this test binary itself, started with the environment of a
/// ``PostgresChild`` role and a filter that runs only ``childProcess()``, as the SQLite
/// process tests do. That needs the test binary to be an executable, as it is on Linux.
@Suite struct PostgresProcessTests {
    @Test(.enabled(if: PostgresChild.current != nil, "runs only inside a child started by the tests below"))
    func childProcess() async throws {
        try await PostgresChild.current?.run()
    }

    @Test(.enabled(if: PostgresChild.canLaunch))
    func everySaveAKilledWriterAcknowledgedIsStored() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("killed")
        let scratch = try TemporaryDirectory()
        var random = SeededRandomNumberGenerator(seed: 916)
        let store = try await PostgresStores.make(FixtureEntity.self, table: table)
        for round in 0..<4 {
            let acks = scratch.file("acks-\(round)")
            try Data().write(to: acks)
            let child = try PostgresChild.launch(
                [
                    "role": "writer", "conninfo": server.connectionString, "table": table, "acks": acks.path,
                    "first": String(round * 1_000_000),
                ])
            while try String(contentsOf: acks, encoding: .utf8).isEmpty {
                guard child.process.isRunning else {
                    Issue.record("the writer exited: \(child.output())")
                    return
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...200, using: &random)))
            child.kill()
            let acknowledged = try String(contentsOf: acks, encoding: .utf8).split(separator: "\n").compactMap
            { Int($0) }
            let stored = Set(try await store.fetch(ids: acknowledged).map(\.id))
            let missing = acknowledged.filter { !stored.contains($0) }
            #expect(missing.isEmpty, "round \(round): acknowledged but not stored: \(missing.prefix(10))")
            // Batches of five start at multiples of 7: each is there whole or not at all.
            let all = Set(try await store.fetchAll().map(\.id))
            for start in all where start % 7 == 0 {
                #expect(
                    (start..<start + 5).allSatisfy(all.contains), "round \(round): batch \(start) is partial")
            }
            #expect(acknowledged.count > 0)
        }
        await store.close()
    }

    @Test(.enabled(if: PostgresChild.canLaunch))
    func twoProcessesWithCoherentCachesNeverReadStaleAfterTheNotification() async throws {
        let server = try await PostgresTestServer.shared()
        let table = PostgresStores.tableName("coherent")
        let children = try (0..<2).map { _ in
            try PostgresChild.launch([
                "role": "coherence", "conninfo": server.connectionString, "table": table,
            ])
        }
        defer { for child in children { child.kill() } }
        // The lockstep reads the children's answers with blocking reads, for the whole run: on
        // a thread of its own, since one held cooperative thread of two starves other tests.
        let seed: UInt64 = 1_616
        let (reads, stale) = try await offThePool { try Self.lockstep(children, seed: seed) }
        #expect(stale.isEmpty, "stale reads (seed \(seed)): \(stale)")
        #expect(reads > 4_000)
        try await offThePool { for child in children { try child.send("quit", expecting: "bye") } }
        try await PostgresTestServer.shared().psql("DROP TABLE IF EXISTS \"\(table)\"")
    }

    /// 10,000 operations in lockstep on the two children: a write by one, then the other
    /// waits until it hears of it before it may read; returns how many reads were made and
    /// the first stale ones.
    private static func lockstep(_ children: [LineChild], seed: UInt64) throws -> (Int, [String]) {
        for child in children { try child.expect("ready") }
        var random = SeededRandomNumberGenerator(seed: seed)
        var model: [Int: Int] = [:]
        var reads = 0
        var stale: [String] = []
        for operation in 0..<10_000 {
            let writer = Int.random(in: 0...1, using: &random)
            let (actor, other) = (children[writer], children[1 - writer])
            let id = Int.random(in: 0..<24, using: &random)
            let roll = Int.random(in: 0..<100, using: &random)
            if roll < 40 || (roll < 50 && model[id] != nil) {
                let command = roll < 40 ? "save \(id) \(operation)" : "delete \(id)"
                // Lockstep: the other marks what it has heard, the write returns, then the other
                // waits until it hears of this write, and only then may it read.
                try other.send("mark \(id)", expecting: "ok")
                try actor.send(command, expecting: "ok")
                try other.send("await \(id)", expecting: "ok")
                model[id] = roll < 40 ? operation : nil
            } else {
                reads += 1
                let answer = try actor.send("read \(id)")
                let expected = String(model[id] ?? -1)
                if answer != expected, stale.count < 10 {
                    stale.append(
                        "operation \(operation): process \(writer) read #\(id) as \(answer), expected \(expected)"
                    )
                }
            }
        }
        return (reads, stale)
    }
}

// MARK: - The children

/// What a child process started by these tests does, read from its environment.
struct PostgresChild {
    var settings: [String: String]

    private static let prefix = "REPOSITORIES_POSTGRES_CHILD_"

    /// This process's role, or `nil` when it is not such a child.
    static var current: PostgresChild? {
        let settings = ProcessInfo.processInfo.environment.filter { $0.key.hasPrefix(prefix) }
        guard !settings.isEmpty else { return nil }
        return PostgresChild(
            settings: Dictionary(
                uniqueKeysWithValues: settings.map { (String($0.key.dropFirst(prefix.count)), $0.value) }))
    }

    /// Whether this test binary can start itself as a child (Linux's `/proc/self/exe`).
    static var canLaunch: Bool {
        FileManager.default.fileExists(atPath: "/proc/self/exe") && current == nil
    }

    /// Starts this test binary as a child with `settings`.
    static func launch(_ settings: [String: String]) throws -> LineChild {
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in settings { environment[prefix + key] = value }
        return try LineChild(
            executable: URL(
                filePath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")),
            arguments: [
                "--testing-library", "swift-testing", "--filter", "PostgresProcessTests/childProcess",
            ],
            environment: environment)
    }

    func run() async throws {
        let store = try await PostgresRepository<FixtureEntity>(
            connectionString: settings["conninfo"] ?? "",
            options: PostgresOptions(tableName: settings["table"], poolSize: 2))
        switch settings["role"] {
        case "writer": try await write(to: store)
        case "coherence": try await serve(store)
        default: Issue.record("unknown role \(settings)")
        }
    }

    /// Saves forever (batches of five from each multiple of 7), appending each ID to the
    /// acknowledgement file once its save returned.
    private func write(to store: PostgresRepository<FixtureEntity>) async throws {
        let acks = try FileHandle(forWritingTo: URL(filePath: settings["acks"] ?? ""))
        var next = Int(settings["first"] ?? "") ?? 0
        while true {
            let ids = next % 7 == 0 ? Array(next..<next + 5) : [next]
            if ids.count == 1 {
                try await store.save(.make(next))
            } else {
                try await store.save(contentsOf: ids.map(FixtureEntity.make))
            }
            acks.write(Data(ids.map { "\($0)\n" }.joined().utf8))
            next += ids.count
        }
    }

    /// Answers commands on standard input through a coherent cache.
    private func serve(_ store: PostgresRepository<FixtureEntity>) async throws {
        let heard = Mutex<(everything: Int, byID: [Int: Int])>((0, [:]))
        let cache = store.cachedCoherently(
            in: InMemoryRepository<Cached<FixtureEntity>>(), timeToLive: .seconds(3_600),
            onChange: { change in
                heard.withLock { heard in
                    switch change {
                    case .everything: heard.everything += 1
                    case .changed(let ids): for id in ids { heard.byID[id, default: 0] += 1 }
                    }
                }
            })
        let count = { (id: Int) in heard.withLock { $0.everything + $0.byID[id, default: 0] } }
        while heard.withLock({ $0.everything }) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let say = { (line: String) in FileHandle.standardOutput.write(Data("@@ \(line)\n".utf8)) }
        say("ready")
        var marks: [Int: Int] = [:]
        for await line in Self.standardInputLines() {
            let words = line.split(separator: " ")
            let id = words.count > 1 ? Int(words[1]) ?? 0 : 0
            switch words.first {
            case "save":
                try await cache.save(.make(id, revision: words.count > 2 ? Int(words[2]) ?? 0 : 0))
                say("ok")
            case "delete":
                try await cache.delete(id: id)
                say("ok")
            case "read": say(String(try await cache.fetch(id: id)?.revision ?? -1))
            case "mark":
                marks[id] = count(id)
                say("ok")
            case "await":
                // A limit, not a measure: the machine may be loaded by the whole suite.
                let deadline = ContinuousClock.now + .seconds(60)
                while count(id) <= marks[id, default: 0], ContinuousClock.now < deadline {
                    try await Task.sleep(for: .microseconds(200))
                }
                say(count(id) > marks[id, default: 0] ? "ok" : "no notification for #\(id) within 60 s")
            case "quit":
                await store.close()
                say("bye")
                return
            default: say("unknown command \(line)")
            }
        }
    }

    /// Lines of standard input, read on a thread of their own so no thread of the cooperative
    /// pool blocks on the pipe.
    private static func standardInputLines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        return stream
    }
}

/// A child process driven line by line: commands on its standard input, answers on its
/// standard output after `@@ ` (the rest of its output is the test runner's).
final class LineChild: @unchecked Sendable {
    // @unchecked: each instance is driven by one test task.
    let process = Process()
    private let input = Pipe()
    private let outputPipe = Pipe()
    private var buffered = Data()
    private var seen: [String] = []

    init(executable: URL, arguments: [String], environment: [String: String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = outputPipe
        process.standardError = outputPipe
        try process.runAlone()
        // A child that stalls must fail its test, not hang the suite.
        DispatchQueue.global().asyncAfter(deadline: .now() + 180) { [process] in
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        }
    }

    /// Sends `command` and returns the child's answer.
    @discardableResult
    func send(_ command: String, expecting expected: String? = nil) throws -> String {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        let answer = try nextAnswer()
        if let expected, answer != expected {
            throw Unexpected(
                description: "\(command) → \(answer), expected \(expected); output: \(seen.suffix(20))")
        }
        return answer
    }

    /// Waits for the answer `expected`.
    func expect(_ expected: String) throws {
        let answer = try nextAnswer()
        guard answer == expected else {
            throw Unexpected(description: "got \(answer), expected \(expected); output: \(seen.suffix(20))")
        }
    }

    private func nextAnswer() throws -> String {
        while true {
            while let newline = buffered.firstIndex(of: 0x0A) {
                let line = String(decoding: buffered[buffered.startIndex..<newline], as: UTF8.self)
                buffered.removeSubrange(buffered.startIndex...newline)
                seen.append(line)
                if line.hasPrefix("@@ ") { return String(line.dropFirst(3)) }
            }
            let chunk = outputPipe.fileHandleForReading.availableData
            if chunk.isEmpty { throw Unexpected(description: "the child ended; output: \(seen.suffix(40))") }
            buffered.append(chunk)
        }
    }

    /// What the child printed so far.
    func output() -> String { seen.joined(separator: "\n") }

    /// Kills the child with SIGKILL; Foundation reaps it. Not waited for here: a wait on a
    /// cooperative thread can stop the whole run (see `waitUntilExitOffThePool()`).
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
    }

    struct Unexpected: Error, CustomStringConvertible {
        var description: String
    }
}
