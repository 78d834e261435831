import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the FastAPI crash run is told: where the device and the API are, when to die, and
/// which changes to make.
struct FastAPIRun {
    /// Where the device keeps its local store and outbox.
    var device: URL
    /// The FastAPI app's `/tasks/` collection.
    var api: URL
    /// A step of the offline-first stack, or `answer`: a write's 2xx answer has arrived
    /// and the repository has not read it (the server applied the change, the device never
    /// hears), which can fall in the middle of a batch sent one request per entity.
    var killPoint: String
    /// The how-manyth time the kill point is reached that kills.
    var occurrence: Int
    /// The number of the first new task.
    var firstNumber: Int
    /// The number of the first change; each change has its own.
    var firstChange: Int
    /// How many changes to make offline before syncing.
    var changes: Int
    /// Seeds the choice of changes.
    var seed: UInt64

    /// Reads the run from the fixture's arguments after the mode, or returns `nil`.
    init?(_ arguments: ArraySlice<String>) {
        let words = Array(arguments)
        guard words.count == 8, let api = URL(string: words[1]), let occurrence = Int(words[3]),
            let firstNumber = Int(words[4]), let firstChange = Int(words[5]), let changes = Int(words[6]),
            let seed = UInt64(words[7]),
            words[2] == "answer" || _OfflineFirstStep(rawValue: words[2]) != nil
        else { return nil }
        self.device = URL(fileURLWithPath: words[0])
        self.api = api
        self.killPoint = words[2]
        self.occurrence = occurrence
        self.firstNumber = firstNumber
        self.firstChange = firstChange
        self.changes = changes
        self.seed = seed
    }
}

/// Makes `run.changes` changes offline through an offline-first stack over the real FastAPI
/// app (new tasks alone and three at a time, edits of tasks it holds alone and two at a
/// time, deletes alone and two at a time, in a seeded order), then syncs until the outbox
/// is empty, and kills itself with SIGKILL at the run's kill point. Exits with status 4 if
/// the kill point was never reached.
///
/// Prints `begin save N C` or `begin delete N C` before each change (task N, change C) and
/// `ack …` the same once its write returned, each line in one write, so the parent knows
/// exactly what was acknowledged before the kill.
func offlineFirstOverFastAPI(_ run: FastAPIRun) async throws {
    var transport: any HTTPTransport = URLSessionTransport()
    if let step = _OfflineFirstStep(rawValue: run.killPoint) {
        killItself(at: step, occurrence: run.occurrence)
    } else {
        transport = KillingTransport(afterAnswers: run.occurrence)
    }
    let local = try await FileRepository<TrackedTask>(fileURL: run.device.appending(path: "device.store"))
    let outbox = try await Outbox<TrackedTask>(fileURL: run.device.appending(path: "device.outbox"))
    let tasks = HTTPRepository<TrackedTask>(baseURL: run.api, configuration: .fastAPI(), transport: transport)
        .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
    var held: [Int: TrackedTask] = [:]
    for task in try await tasks.fetchAll() {
        if let number = task.number { held[number] = task }
    }
    say("ready")

    var random = SeededRandomNumberGenerator(seed: run.seed)
    var number = run.firstNumber
    var change = run.firstChange
    let last = run.firstChange + run.changes
    // Mostly tasks not changed yet this round, so the sync carries hundreds of changes; one
    // pick in five a task changed already, whose queued change the new one supersedes.
    var untouched = held.keys.sorted().shuffled(using: &random)
    var touched: [Int] = []
    func pick(_ count: Int) -> [Int] {
        var picked: [Int] = []
        while picked.count < count {
            let candidate: Int
            if !touched.isEmpty && (untouched.isEmpty || Int.random(in: 0..<5, using: &random) == 0) {
                candidate = touched[Int.random(in: 0..<touched.count, using: &random)]
            } else if let next = untouched.popLast() {
                candidate = next
            } else {
                break
            }
            if picked.contains(candidate) {
                if untouched.isEmpty { break }
                continue
            }
            picked.append(candidate)
        }
        return picked
    }
    while change < last {
        let kind = Int.random(in: 0..<10, using: &random)
        let room = last - change
        let wanted = kind == 7 || kind == 9 ? min(2, room) : [4, 5, 6, 8].contains(kind) ? 1 : 0
        let existing = pick(wanted)
        if kind == 3 && room >= 3 {
            let batch = (0..<3).map { TrackedTask.make(number + $0, change: change + $0) }
            try await save(batch, in: tasks)
            for task in batch { held[task.number ?? 0] = task }
            touched += batch.compactMap(\.number)
            number += 3
            change += 3
        } else if [4, 5, 6, 7].contains(kind) && !existing.isEmpty {
            let batch = existing.enumerated().map { offset, picked in
                TrackedTask.make(picked, change: change + offset, updatedAt: held[picked]?.updatedAt)
            }
            try await save(batch, in: tasks)
            for task in batch {
                held[task.number ?? 0] = task
                if !touched.contains(task.number ?? 0) { touched.append(task.number ?? 0) }
            }
            change += batch.count
        } else if kind >= 8 && !existing.isEmpty {
            let doomed = existing.enumerated().map { offset, picked in (picked, change + offset) }
            try await delete(doomed, in: tasks)
            for (picked, _) in doomed {
                held[picked] = nil
                touched.removeAll { $0 == picked }
            }
            change += doomed.count
        } else {
            let task = TrackedTask.make(number, change: change)
            try await save([task], in: tasks)
            held[number] = task
            touched.append(number)
            number += 1
            change += 1
        }
    }
    say("syncing")
    for _ in 0..<100 {
        do {
            try await tasks.sync()
            if try await outbox.changes().isEmpty { break }
        } catch let error as RepositoryError where error.code == .unavailable || error.code == .timedOut {
            continue  // an answer lost on purpose: sync again, as an app would
        }
    }
    say("drained, never killed at \(run.killPoint) #\(run.occurrence)")
    exit(4)
}

/// Saves `batch` (one task: `save`, several: `save(contentsOf:)`), printing `begin` and
/// `ack` around it.
private func save<R: Repository<TrackedTask, UUID>>(_ batch: [TrackedTask], in tasks: R) async throws {
    for task in batch { say("begin save \(task.number ?? -1) \(task.change ?? -1)") }
    if batch.count == 1 {
        try await tasks.save(batch[0])
    } else {
        try await tasks.save(contentsOf: batch)
    }
    for task in batch { say("ack save \(task.number ?? -1) \(task.change ?? -1)") }
}

/// Deletes the tasks of `doomed` (number, change), printing `begin` and `ack` around it.
private func delete<R: Repository<TrackedTask, UUID>>(_ doomed: [(Int, Int)], in tasks: R) async throws {
    for (number, change) in doomed { say("begin delete \(number) \(change)") }
    if doomed.count == 1 {
        try await tasks.delete(id: TrackedTask.id(doomed[0].0))
    } else {
        try await tasks.delete(ids: doomed.map { TrackedTask.id($0.0) })
    }
    for (number, change) in doomed { say("ack delete \(number) \(change)") }
}

/// A real transport that kills the process with SIGKILL when the `afterAnswers`-th 2xx
/// answer to a write has arrived, before the repository reads it.
private final class KillingTransport: HTTPTransport {
    private let base = URLSessionTransport()
    private let answers = Atomic(0)
    private let afterAnswers: Int

    init(afterAnswers: Int) {
        self.afterAnswers = afterAnswers
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await base.send(request)
        if request.httpMethod != "GET", (200..<300).contains(response.statusCode),
            answers.add(1, ordering: .sequentiallyConsistent).newValue == afterAnswers
        {
            kill(getpid(), SIGKILL)
        }
        return (data, response)
    }
}
