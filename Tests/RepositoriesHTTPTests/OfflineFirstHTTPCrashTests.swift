import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import Testing

/// A real child process writes through the offline-first stack over the HTTP fixture
/// server and kills itself with SIGKILL at one step of a write or a sync: during a write,
/// between the outbox and the local store (either way), before a request, after the server
/// applied one but before the device heard, and during a pull. After each kill the device
/// restarts and syncs once; the server's log (bodies and idempotency keys) shows that every
/// acknowledged change is there, applied once, in the order it was made, and nothing else.
@Suite(.serialized) struct OfflineFirstHTTPCrashTests {
    /// At least 20 kills at each step; `REPOSITORIES_CRASH_KILLS` asks for more.
    var kills: Int {
        ChildProcess.killCount
    }

    @Test(arguments: _OfflineFirstStep.allCases)
    func everyAcknowledgedChangeReachesTheServerOnceInOrder(killedAt step: _OfflineFirstStep) async throws {
        try await withFixtureServer { server in
            let api = server.newCollection("crash-\(step.rawValue)")
            let directory = try TemporaryDirectory()
            var random = SeededRandomNumberGenerator(seed: 16 &+ UInt64(step.rawValue.utf8.count))
            var history = ChangeHistory()
            for round in 0..<kills {
                let child = try ChildProcess([
                    "offline-first-http", directory.url.path, api.absoluteString, step.rawValue,
                    String(Int.random(in: 1...4, using: &random)), String(history.nextID),
                ])
                try await child.waitForLine("ready")
                let printed = await child.finish()
                #expect(
                    child.process.terminationReason == .uncaughtSignal
                        && child.process.terminationStatus == SIGKILL,
                    "round \(round): the child was to kill itself at \(step); it printed \(printed.suffix(3))"
                )
                history.read(printed)

                // Restart: the device reopens, replays its outbox, and syncs once.
                let local = try await FileRepository<FixtureEntity>(
                    fileURL: directory.url.appending(path: "device.store"))
                let outbox = try await Outbox<FixtureEntity>(
                    fileURL: directory.url.appending(path: "device.outbox"))
                let notes = HTTPRepository<FixtureEntity>(baseURL: api)
                    .offlineFirst(
                        local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
                try await notes.sync()

                let stored = try await HTTPRepository<FixtureEntity>(baseURL: api).fetchAll()
                let held = Dictionary(
                    stored.map { ($0.id, ChangeHistory.Change.save($0.revision ?? 0)) },
                    uniquingKeysWith: { _, last in last })
                for problem in history.check(server: held) {
                    Issue.record("killed at \(step), round \(round): \(problem)")
                }
                for entity in stored
                where entity != FixtureEntity.make(entity.id, revision: entity.revision ?? 0) {
                    Issue.record(
                        "killed at \(step), round \(round): entity \(entity.id) on the server is not what any change wrote"
                    )
                }
                for problem in AppliedWrites(try await server.log(api), history: history).problems {
                    Issue.record("killed at \(step), round \(round): \(problem)")
                }
                #expect(try await outbox.changes().isEmpty, "round \(round): the outbox drained")
                #expect(
                    try await local.fetchAll().sorted { $0.id < $1.id } == stored.sorted { $0.id < $1.id },
                    "round \(round): the device agrees with the server")
                try await local.close()
                try await outbox.close()
            }
        }
    }
}

/// The writes the rest server applied (answered 2xx, not replayed from an idempotency key),
/// from its log, counted per change (``AppliedChanges``), and no idempotency key applied
/// twice.
private struct AppliedWrites {
    private(set) var problems: [String] = []

    init(_ log: [FixtureServer.LoggedRequest], history: ChangeHistory) {
        var keys: [String: Int] = [:]
        var changes = AppliedChanges()
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        for entry in log where entry.method != "GET" && entry.replayed != true {
            guard let status = Int(entry.status ?? ""), (200..<300).contains(status) else { continue }
            if let key = entry.header("Idempotency-Key") { keys[key, default: 0] += 1 }
            let body = Data((entry.body ?? "").utf8)
            if entry.method == "DELETE", let id = entry.path.split(separator: "/").last.flatMap({ Int($0) }) {
                changes.append(id: id, .delete)
            } else if let one = try? decoder.decode(FixtureEntity.self, from: body) {
                changes.append(id: one.id, .save(one.revision ?? 0))
            } else if let many = try? decoder.decode([FixtureEntity].self, from: body) {
                for entity in many { changes.append(id: entity.id, .save(entity.revision ?? 0)) }
            } else {
                problems.append("a write the test cannot read: \(entry.line) \(entry.body ?? "")")
            }
        }
        for (key, count) in keys where count > 1 {
            problems.append("idempotency key \(key) was applied \(count) times")
        }
        problems += changes.problems(against: history)
    }
}
