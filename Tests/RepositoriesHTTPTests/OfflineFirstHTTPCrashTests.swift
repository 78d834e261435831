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
                try child.waitForLine("ready")
                let printed = child.finish()
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
                for problem in history.check(server: stored) {
                    Issue.record("killed at \(step), round \(round): \(problem)")
                }
                for problem in AppliedWrites(try await server.log(api)).problems {
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

/// What the child said it began and what it acknowledged, per entity, across rounds.
private struct ChangeHistory {
    /// A change: a save of a revision, or a delete.
    enum Change: Equatable, CustomStringConvertible {
        case save(Int)
        case delete

        var description: String {
            switch self {
            case .save(let revision): "revision \(revision)"
            case .delete: "deleted"
            }
        }
    }

    /// The last acknowledged change of each ID.
    private var acknowledged: [Int: Change] = [:]
    /// The changes begun after an ID's last acknowledged one and never acknowledged: the
    /// kill caught them, so each may or may not have survived.
    private var unacknowledged: [Int: [Change]] = [:]
    /// The IDs any change began for.
    private var begun = Set<Int>()
    /// The first ID the next child uses for new entities.
    private(set) var nextID = 0

    mutating func read(_ lines: [String]) {
        for line in lines {
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 3, let id = Int(words[2]) else { continue }
            let change: Change = words[1] == "delete" ? .delete : .save(Int(words[3]) ?? 0)
            nextID = max(nextID, id + 1)
            if words[0] == "begin" {
                begun.insert(id)
                unacknowledged[id, default: []].append(change)
            } else if words[0] == "ack" {
                acknowledged[id] = change
                unacknowledged[id] = nil
            }
        }
    }

    /// What is wrong with the server's state: an acknowledged change missing or replaced by
    /// an older one, or an entity no change began.
    func check(server: [FixtureEntity]) -> [String] {
        let held = Dictionary(server.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        var problems: [String] = []
        for id in begun.sorted() {
            let now: Change? = held[id].map { .save($0.revision ?? 0) }
            var allowed = unacknowledged[id] ?? []
            if let last = acknowledged[id] { allowed.append(last) } else { allowed.append(.delete) }
            let matches = allowed.contains { change in
                change == .delete ? now == nil : now == change
            }
            if !matches {
                problems.append(
                    "entity \(id) is \(now?.description ?? "absent") on the server; acknowledged: \(acknowledged[id]?.description ?? "nothing"), in flight at the kill: \(unacknowledged[id] ?? [])"
                )
            }
            if let entity = held[id], entity != FixtureEntity.make(id, revision: entity.revision ?? 0) {
                problems.append("entity \(id) on the server is not what any change wrote")
            }
        }
        for id in held.keys where !begun.contains(id) {
            problems.append("the server holds entity \(id), which no change began")
        }
        return problems
    }
}

/// The writes the server applied (answered 2xx, not replayed from an idempotency key), from
/// its log: each key applied once, and each entity's changes once each, in increasing
/// revisions, nothing after its delete.
private struct AppliedWrites {
    private(set) var problems: [String] = []

    init(_ log: [FixtureServer.LoggedRequest]) {
        var keys: [String: Int] = [:]
        var changes: [Int: [Int?]] = [:]  // revision, or nil for a delete
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        for entry in log where entry.method != "GET" && entry.replayed != true {
            guard let status = Int(entry.status ?? ""), (200..<300).contains(status) else { continue }
            if let key = entry.header("Idempotency-Key") { keys[key, default: 0] += 1 }
            let body = Data((entry.body ?? "").utf8)
            if entry.method == "DELETE", let id = entry.path.split(separator: "/").last.flatMap({ Int($0) }) {
                changes[id, default: []].append(nil)
            } else if let one = try? decoder.decode(FixtureEntity.self, from: body) {
                changes[one.id, default: []].append(one.revision)
            } else if let many = try? decoder.decode([FixtureEntity].self, from: body) {
                for entity in many { changes[entity.id, default: []].append(entity.revision) }
            } else {
                problems.append("a write the test cannot read: \(entry.line) \(entry.body ?? "")")
            }
        }
        for (key, count) in keys where count > 1 {
            problems.append("idempotency key \(key) was applied \(count) times")
        }
        for (id, applied) in changes.sorted(by: { $0.key < $1.key }) {
            let saves = applied.prefix { $0 != nil }.compactMap { $0 }
            if saves != saves.sorted() || Set(saves).count != saves.count {
                problems.append("entity \(id)'s changes were applied as \(applied), not once each in order")
            }
            if applied.count > saves.count + 1 {
                problems.append("entity \(id) was changed again after its delete: \(applied)")
            }
        }
    }
}
