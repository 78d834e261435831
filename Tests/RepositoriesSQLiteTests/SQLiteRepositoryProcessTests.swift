import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The store across real processes: every acknowledged write survives `kill -9`, and two
/// processes writing at once lose nothing.
///
/// The child process is this test binary itself, started with the environment variables of
/// a ``ChildRole`` and a filter that runs only ``childProcess()``. That needs the test binary
/// to be an executable, as it is on Linux; elsewhere these tests are skipped.
@Suite struct SQLiteRepositoryProcessTests {
    /// A directory of its own for each test, removed with it.
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    @Test(.enabled(if: ChildRole.current != nil, "runs only inside a child started by the tests below"))
    func childProcess() async throws {
        try await ChildRole.current?.run()
    }

    @Test(.enabled(if: ChildLauncher.isAvailable))
    func acknowledgedWritesSurviveSIGKILL() async throws {
        let kills = ChildProcess.killCount
        let database = scratch.file("crash.sqlite")
        let acks = scratch.file("acks.txt")
        var random = SeededRandomNumberGenerator(seed: 2_024)
        let reference = InMemoryRepository<ConformanceEntity>()
        var acknowledged = 0  // operations 0..<acknowledged returned in a child
        for round in 0..<kills {
            try Data().write(to: acks)
            let child = try ChildLauncher.start(
                .crash(database: database, acknowledgements: acks, firstOperation: acknowledged),
                log: scratch.file("child-\(round).log"))
            try await child.waitForAcknowledgement(in: acks)
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...120, using: &random)))
            try await child.kill()

            let returned = try ChildRole.acknowledgedOperations(in: acks)
            #expect(returned.first == acknowledged, "round \(round): the child restarted elsewhere")
            for operation in CrashSchedule.operations(acknowledged..<(acknowledged + returned.count)) {
                try await operation.apply(to: reference)
            }
            acknowledged += returned.count
            // The operation in flight at the kill may have landed too, whole.
            let withInFlight = InMemoryRepository<ConformanceEntity>(try await reference.fetchAll())
            for operation in CrashSchedule.operations(acknowledged..<(acknowledged + 1)) {
                try await operation.apply(to: withInFlight)
            }

            let store = try await SQLiteRepository<ConformanceEntity>(fileURL: database)
            let stored = try await store.fetchAll()
            try await store.close()
            let expected = try await reference.fetchAll()
            let expectedWithInFlight = try await withInFlight.fetchAll()
            #expect(
                stored == expected || stored == expectedWithInFlight,
                """
                round \(round): after \(acknowledged) acknowledged operations the store holds \
                \(stored.count) entities, expected \(expected.count) (or \(expectedWithInFlight.count)); \
                first difference: \(Self.firstDifference(stored, expected))
                """)
        }
        #expect(acknowledged >= kills, "the children acknowledged only \(acknowledged) operations")
    }

    static func firstDifference(_ stored: [ConformanceEntity], _ expected: [ConformanceEntity]) -> String {
        for (offset, pair) in zip(stored, expected).enumerated() where pair.0 != pair.1 {
            return
                "at \(offset), stored #\(pair.0.id) r\(pair.0.revision), expected #\(pair.1.id) r\(pair.1.revision)"
        }
        return "none in the common prefix"
    }

    @Test(.enabled(if: ChildLauncher.isAvailable))
    func twoProcessesWriteConcurrentlyAndNothingIsLost() async throws {
        let database = scratch.file("shared.sqlite")
        let perProcess = 300
        let children = try (0..<2).map { index in
            try ChildLauncher.start(
                .write(database: database, first: index * perProcess, count: perProcess),
                log: scratch.file("writer-\(index).log"))
        }
        for child in children {
            let status = try await child.waitForExit(timeout: .seconds(120))
            #expect(status == 0, "a writer exited with status \(status): \(child.log)")
        }
        let store = try await SQLiteRepository<ConformanceEntity>(fileURL: database)
        #expect(try await store.fetchAll().map(\.id).sorted() == Array(0..<(2 * perProcess)))
        try await store.close()
    }
}

// MARK: - The work a child does

/// What a child process started by these tests does, read from its environment.
enum ChildRole {
    /// Runs ``CrashSchedule`` from `firstOperation` until killed, appending each operation's
    /// number to `acknowledgements` once it returned.
    case crash(database: URL, acknowledgements: URL, firstOperation: Int)
    /// Saves entities `first..<first + count` from two tasks, then exits.
    case write(database: URL, first: Int, count: Int)
    /// Appends 0 to `acknowledgements`, opens the table `Todo` at version 2 (upgrading it),
    /// appends 1, then waits to be killed.
    case migrate(database: URL, acknowledgements: URL)

    private static let roleKey = "REPOSITORIES_SQLITE_CHILD"
    private static let databaseKey = "REPOSITORIES_SQLITE_CHILD_DATABASE"
    private static let acknowledgementsKey = "REPOSITORIES_SQLITE_CHILD_ACKS"
    private static let firstKey = "REPOSITORIES_SQLITE_CHILD_FIRST"
    private static let countKey = "REPOSITORIES_SQLITE_CHILD_COUNT"

    /// The role of this process, or `nil` when it is not such a child.
    static var current: ChildRole? {
        let environment = ProcessInfo.processInfo.environment
        guard let role = environment[roleKey], let database = environment[databaseKey],
            let first = environment[firstKey].flatMap({ Int($0) })
        else { return nil }
        let databaseURL = URL(filePath: database)
        switch role {
        case "crash":
            guard let acknowledgements = environment[acknowledgementsKey] else { return nil }
            return .crash(
                database: databaseURL, acknowledgements: URL(filePath: acknowledgements),
                firstOperation: first)
        case "migrate":
            guard let acknowledgements = environment[acknowledgementsKey] else { return nil }
            return .migrate(database: databaseURL, acknowledgements: URL(filePath: acknowledgements))
        case "write":
            guard let count = environment[countKey].flatMap({ Int($0) }) else { return nil }
            return .write(database: databaseURL, first: first, count: count)
        default:
            return nil
        }
    }

    /// The environment variables that give a child this role.
    var environment: [String: String] {
        switch self {
        case .crash(let database, let acknowledgements, let firstOperation):
            [
                Self.roleKey: "crash", Self.databaseKey: database.path(percentEncoded: false),
                Self.acknowledgementsKey: acknowledgements.path(percentEncoded: false),
                Self.firstKey: String(firstOperation),
            ]
        case .migrate(let database, let acknowledgements):
            [
                Self.roleKey: "migrate", Self.databaseKey: database.path(percentEncoded: false),
                Self.acknowledgementsKey: acknowledgements.path(percentEncoded: false), Self.firstKey: "0",
            ]
        case .write(let database, let first, let count):
            [
                Self.roleKey: "write", Self.databaseKey: database.path(percentEncoded: false),
                Self.firstKey: String(first), Self.countKey: String(count),
            ]
        }
    }

    func run() async throws {
        switch self {
        case .crash(let database, let acknowledgements, let firstOperation):
            let store = try await SQLiteRepository<ConformanceEntity>(fileURL: database)
            let log = try FileHandle(forWritingTo: acknowledgements)
            try log.seekToEnd()
            let deadline = ContinuousClock.now + .seconds(180)  // never outlive a vanished parent
            var number = firstOperation
            for operation in CrashSchedule.operations(firstOperation..<Int.max) {
                guard ContinuousClock.now < deadline else { break }
                try await operation.apply(to: store)
                // One write(2) per line: the line is in the file, whole, before the next save.
                try log.write(contentsOf: Data("\(number)\n".utf8))
                number += 1
            }
        case .migrate(let database, let acknowledgements):
            let log = try FileHandle(forWritingTo: acknowledgements)
            try log.seekToEnd()
            try log.write(contentsOf: Data("0\n".utf8))
            let store = try await SQLiteRepository<Todo>(
                fileURL: database, options: SQLiteRepositoryMigrationTests.table,
                migrations: Todo.migrations())
            try log.write(contentsOf: Data("1\n".utf8))
            try await Task.sleep(for: .seconds(180))  // never outlive a vanished parent
            try await store.close()
        case .write(let database, let first, let count):
            let store = try await SQLiteRepository<ConformanceEntity>(fileURL: database)
            let half = count / 2
            try await withThrowingTaskGroup(of: Void.self) { group in
                for range in [first..<(first + half), (first + half)..<(first + count)] {
                    group.addTask {
                        for index in range { try await store.save(.make(index: index, revision: 0)) }
                    }
                }
                try await group.waitForAll()
            }
            try await store.close()
        }
    }

    /// The operation numbers a crash child acknowledged, in order.
    static func acknowledgedOperations(in file: URL) throws -> [Int] {
        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        return text.split(separator: "\n").compactMap { Int($0) }
    }
}

/// The deterministic operations a crash child runs: single saves of new entities, batches of
/// three, replacements and deletes. Every operation is idempotent, so a child restarted at the
/// first unacknowledged one reaches the same state whether or not it had landed.
enum CrashSchedule {
    enum Operation {
        case save(ConformanceEntity)
        case batch([ConformanceEntity])
        case delete(Int)

        func apply<Store: Repository<ConformanceEntity, Int>>(to store: Store) async throws {
            switch self {
            case .save(let entity): try await store.save(entity)
            case .batch(let entities): try await store.save(contentsOf: entities)
            case .delete(let id): try await store.delete(id: id)
            }
        }
    }

    /// Operations numbered `range`, computed one by one from operation 0 so their IDs are
    /// always the same (an unfolded sequence, not a lazy collection that could skip the count).
    static func operations(_ range: Range<Int>) -> some Sequence<Operation> {
        sequence(state: (number: 0, nextID: 0)) { state -> Operation? in
            let number = state.number
            guard number < range.upperBound else { return nil }
            state.number += 1
            if number % 11 == 10 { return .delete(number / 3) }
            if number % 7 == 6 { return .save(.make(index: number / 2, revision: number)) }
            if number % 5 == 4 {
                let first = state.nextID
                state.nextID += 3
                return .batch((first..<(first + 3)).map { .make(index: $0, revision: 0) })
            }
            state.nextID += 1
            return .save(.make(index: state.nextID - 1, revision: 0))
        }.dropFirst(range.lowerBound)
    }
}

// MARK: - Starting children

/// A child process running this test binary in a ``ChildRole``.
final class ChildLauncher: Sendable {
    let process: Process
    let logURL: URL

    /// Whether this platform can start the test binary as a child (Linux: it is an executable).
    static var isAvailable: Bool {
        #if os(Linux)
            ChildRole.current == nil
        #else
            false
        #endif
    }

    private init(process: Process, logURL: URL) {
        self.process = process
        self.logURL = logURL
    }

    static func start(_ role: ChildRole, log: URL) throws -> ChildLauncher {
        let process = Process()
        process.executableURL = URL(
            filePath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = [
            "--testing-library", "swift-testing", "--filter", "SQLiteRepositoryProcessTests/childProcess",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(role.environment) { $1 }
        try Data().write(to: log)
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.runAlone()
        return ChildLauncher(process: process, logURL: log)
    }

    /// What the child printed, for failure messages.
    var log: String {
        (try? String(contentsOf: logURL, encoding: .utf8)) ?? "(no log)"
    }

    /// Waits until the child acknowledged an operation, or fails if it exits or takes too long.
    func waitForAcknowledgement(in file: URL) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while try ChildRole.acknowledgedOperations(in: file).isEmpty {
            guard process.isRunning, ContinuousClock.now < deadline else {
                Issue.record("the child acknowledged nothing; its output:\n\(log)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Kills the child with SIGKILL and waits until it is gone.
    func kill() async throws {
        Foundation.kill(process.processIdentifier, SIGKILL)
        _ = try await waitForExit(timeout: .seconds(30))
    }

    /// Waits for the child to exit and returns its status, polling so no thread blocks.
    func waitForExit(timeout: Duration) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                Foundation.kill(process.processIdentifier, SIGKILL)
                Issue.record("the child did not exit within \(timeout); its output:\n\(log)")
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
