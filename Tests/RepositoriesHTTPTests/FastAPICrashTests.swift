import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import Testing

/// kill -9 of a device during a 500-change sync against the real FastAPI app, with the app
/// as hostile as a real server: it normalises dates, stamps `updated_at`, loses answers
/// (the connection dropped after the headers, or a gateway's 504) after applying, and honours
/// `Idempotency-Key`.
///
/// Each round a real child process makes 500 changes offline (new tasks, edits, deletes,
/// alone and in batches; each change its own number, written into the task), syncs, and
/// kills itself at one kill point: each step of a write and a sync in turn
/// (`_OfflineFirstStep`), and a write's 2xx answer arrived but unread, which can fall in
/// the middle of a batch. The device restarts and syncs until its outbox drains. The app's
/// log of applications is then counted per change, not per key: every change applied at
/// most once, an entity's changes in the order made, nothing after its delete, nothing no
/// change began; the server holds each entity's last acknowledged change (or one begun
/// after it), which with at most once makes that change applied exactly once (a change a
/// later one replaced in the outbox before it was sent is rightly applied never); the
/// server's copy is the change as sent, up to its dates and stamp; and the device holds
/// exactly what the server holds. Each round prints its figures.
@Suite(.serialized) struct FastAPICrashTests {
    /// The kill points, one per round in turn.
    static let killPoints = _OfflineFirstStep.allCases.map(\.rawValue) + ["answer"]

    @Test func everyAcknowledgedChangeIsAppliedOnceThroughKillsAtEveryStep() async throws {
        try await withFramework(.fastAPI) { server in
            var run = try FastAPICrashRun(server: server, changesPerRound: 500)
            for round in 0..<ChildProcess.killCount {
                var switches = FastAPISwitches()
                switches.normalizeDates = true
                switches.stampUpdatedAt = true
                switches.honourIdempotencyKeys = true
                switches.loseAnswers = 0.004
                switches.lostAnswer = round % 2 == 0 ? "drop" : "504"
                // Half the rounds against a server that keeps only the answers of requests
                // that applied something, which once caught a create applied twice.
                switches.keepAnswers = round % 4 < 2 ? "all" : "applied"
                switches.seed = round
                let figures = try await run.round(
                    round, killedAt: Self.killPoints[round % Self.killPoints.count], switches: switches)
                FileHandle.standardOutput.write(Data("\(figures)\n".utf8))  // as it happens, not buffered
            }
            for problem in run.problems { Issue.record(Comment(rawValue: problem)) }
            #expect(run.rounds == ChildProcess.killCount)
            let counts = try await server.hostilityCounts()
            #expect(
                (counts["lost"] ?? 0) >= ChildProcess.killCount / 2 && (counts["replayed"] ?? 0) > 0,
                "the server lost answers and replayed keys, as asked: \(counts)")
        }
    }
}

/// The device, the server and what they have seen, across the rounds of a crash run.
struct FastAPICrashRun {
    let server: FixtureServer
    let api: URL
    let changesPerRound: Int
    private let directory: TemporaryDirectory
    private var history = ChangeHistory()
    private var applied = AppliedChanges()
    private var random = SeededRandomNumberGenerator(seed: 2_026)
    /// Every problem found, each once, with the round that found it first.
    private(set) var problems: [String] = []
    private var reported = Set<String>()
    /// How many rounds ran to the end.
    private(set) var rounds = 0

    init(server: FixtureServer, changesPerRound: Int) throws {
        self.server = server
        self.api = server.root.appending(path: "tasks/")
        self.changesPerRound = changesPerRound
        self.directory = try TemporaryDirectory()
    }

    /// What one round did, for the log: `round 3 (sending #12, 504): acknowledged 500, …`.
    struct Figures: CustomStringConvertible {
        var round: Int
        var killPoint: String
        var occurrence: Int
        var lostAnswer: String
        var acknowledged = 0
        var appliedChanges = 0
        var applications = 0
        /// Acknowledged changes of the round by how often they were applied.
        var timesApplied: [Int: Int] = [:]
        var syncs = 0
        var counts: [String: Int] = [:]
        /// How long the child, the restart and the checks took.
        var durations: (child: Duration, restart: Duration, checks: Duration) = (.zero, .zero, .zero)

        private func seconds(_ duration: Duration) -> String {
            String(
                format: "%.1f",
                Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        }

        var description: String {
            let applied = timesApplied.filter { $0.key > 0 }.keys
            let spread = applied.isEmpty ? "-" : "\(applied.min() ?? 0)/\(applied.max() ?? 0)"
            return
                "round \(round) (killed at \(killPoint) #\(occurrence), answers lost as \(lostAnswer)): "
                + "acknowledged \(acknowledged), applied at the server \(appliedChanges) changes in \(applications) applications, "
                + "applications per applied acknowledged change min/max \(spread), "
                + "acknowledged changes applied 0× \(timesApplied[0] ?? 0) (superseded before sending), "
                + "1× \(timesApplied[1] ?? 0), more \(timesApplied.filter { $0.key > 1 }.values.reduce(0, +)); "
                + "restart syncs \(syncs); took \(seconds(durations.child)) s child, "
                + "\(seconds(durations.restart)) s restart, \(seconds(durations.checks)) s checks; server so far: \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
        }
    }

    /// Runs one round: the child makes its changes, syncs and is killed at `killPoint`; the
    /// device restarts and syncs until its outbox drains; then every check.
    mutating func round(_ round: Int, killedAt killPoint: String, switches: FastAPISwitches) async throws
        -> Figures
    {
        try await server.setSwitches(switches)
        let occurrence = Self.occurrence(of: killPoint, changes: changesPerRound, using: &random)
        var figures = Figures(
            round: round, killPoint: killPoint, occurrence: occurrence, lostAnswer: switches.lostAnswer)
        let child = try ChildProcess([
            "offline-first-fastapi", directory.url.path, api.absoluteString, killPoint, String(occurrence),
            String(history.nextID), String(history.nextRevision), String(changesPerRound),
            String(2_026 + round),
        ])
        let clock = ContinuousClock()
        var start = clock.now
        try await child.waitForLine("ready")
        let printed = await child.finish()
        figures.durations.child = clock.now - start
        start = clock.now
        if child.process.terminationReason != .uncaughtSignal || child.process.terminationStatus != SIGKILL {
            note(
                "round \(round): the child was to kill itself at \(killPoint) #\(occurrence); it printed \(printed.suffix(3))"
            )
        }
        let acknowledged = history.read(printed)
        figures.acknowledged = acknowledged.count

        let (local, outbox, syncs) = try await restartAndDrain(round)
        figures.syncs = syncs
        figures.durations.restart = clock.now - start
        start = clock.now

        let since = applied.applications.count
        for application in try await server.applications(since: since) {
            guard let number = TrackedTask.number(of: application.id) else {
                note(
                    "round \(round): the server applied a change to \(application.id), not a task this run writes"
                )
                continue
            }
            if application.kind == "delete" {
                applied.append(id: number, .delete)
            } else if let change = application.sent?.title.flatMap({ TrackedTask.change(in: $0) }) {
                applied.append(id: number, .save(change))
            } else {
                note("round \(round): a save the test cannot read: \(application)")
            }
        }
        let fresh = applied.applications[since...]
        figures.applications = fresh.count
        figures.appliedChanges = Set(fresh.map { "\($0.id) \($0.change)" }).count
        for (id, change) in acknowledged {
            figures.timesApplied[applied.count(id: id, change), default: 0] += 1
        }
        figures.counts = try await server.hostilityCounts()

        let stored = try await HTTPRepository<TrackedTask>(baseURL: api, configuration: .fastAPI()).fetchAll()
        var held: [Int: ChangeHistory.Change] = [:]
        for task in stored {
            guard let number = task.number, let change = task.change else {
                note("round \(round): the server holds \(task), which no change of this run wrote")
                continue
            }
            held[number] = .save(change)
            if !task.isStoredCopy(of: TrackedTask.make(number, change: change)) || task.updatedAt == nil {
                note("round \(round): task \(number) on the server is not change \(change) as sent: \(task)")
            }
        }
        for problem in history.check(server: held) + applied.problems(against: history) {
            note("round \(round): \(problem)")
        }
        let device = try await local.fetchAll().sorted { $0.id.uuidString < $1.id.uuidString }
        if device != stored.sorted(by: { $0.id.uuidString < $1.id.uuidString }) {
            note(
                "round \(round): the device holds \(device.count) tasks, the server \(stored.count), and they differ: "
                    + "device only \(Set(device.map(\.title)).subtracting(stored.map(\.title)).sorted().prefix(5)), "
                    + "server only \(Set(stored.map(\.title)).subtracting(device.map(\.title)).sorted().prefix(5))"
            )
        }
        let pending = try await outbox.changes()
        if !pending.isEmpty { note("round \(round): \(pending.count) changes stayed in the outbox") }
        try await local.close()
        try await outbox.close()
        figures.durations.checks = clock.now - start
        rounds += 1
        return figures
    }

    /// Reopens the device as an app restarting would, and syncs until its outbox drains (an
    /// answer lost on purpose makes a sync throw; the next one goes on).
    private mutating func restartAndDrain(_ round: Int) async throws
        -> (FileRepository<TrackedTask>, Outbox<TrackedTask>, Int)
    {
        let local = try await FileRepository<TrackedTask>(
            fileURL: directory.url.appending(path: "device.store"))
        let outbox = try await Outbox<TrackedTask>(fileURL: directory.url.appending(path: "device.outbox"))
        let tasks = HTTPRepository<TrackedTask>(baseURL: api, configuration: .fastAPI())
            .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
        var syncs = 0
        var lastError: RepositoryError?
        while syncs < 100 {
            syncs += 1
            do {
                try await tasks.sync()
                if try await outbox.changes().isEmpty { return (local, outbox, syncs) }
            } catch let error as RepositoryError where error.code == .unavailable || error.code == .timedOut {
                lastError = error
            }
        }
        note(
            "round \(round): the outbox did not drain in \(syncs) syncs; the last error: \(String(describing: lastError))"
        )
        return (local, outbox, syncs)
    }

    private mutating func note(_ problem: String) {
        let key = problem.drop { $0 != ":" }
        guard reported.insert(String(key)).inserted else { return }
        problems.append(problem)
    }

    /// The how-manyth time the child reaches `killPoint` that kills it: a number it surely
    /// reaches in a round of `changes` changes (a write call carries one to three changes; a
    /// sync sends a run of saves or deletes per call and pulls twice; every change but a
    /// superseded one gets one 2xx answer).
    static func occurrence(
        of killPoint: String, changes: Int, using random: inout SeededRandomNumberGenerator
    )
        -> Int
    {
        switch _OfflineFirstStep(rawValue: killPoint) {
        case .writing, .recorded, .applied: Int.random(in: (changes / 5)...(changes * 3 / 5), using: &random)
        case .sending, .sent: Int.random(in: 1...(changes / 8), using: &random)
        case .pulling: Int.random(in: 1...2, using: &random)
        case nil: Int.random(in: 1...(changes * 3 / 5), using: &random)
        }
    }
}
