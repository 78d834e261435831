import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real FastAPI app with the switches that make it behave as a real server does
/// (`Fixtures/fastapi_app.py`), each seen acting through `HTTPRepository` and the
/// offline-first sync, and each change counted in the app's log of applications.
@Suite(.serialized) struct FastAPIHostileServerTests {
    @Test func aKeyAnsweredBeforeGetsItsAnswerAgainAndAppliesNothing() async throws {
        try await withFramework(.fastAPI) { server in
            var switches = FastAPISwitches()
            switches.honourIdempotencyKeys = true
            try await server.setSwitches(switches)
            let tasks = HTTPRepository<TrackedTask>(
                baseURL: server.root.appending(path: "tasks/"), configuration: .fastAPI())
            let task = TrackedTask.make(1, change: 1)
            try await withIdempotencyKey("change-1") { try await tasks.save(task) }
            try await withIdempotencyKey("change-1") { try await tasks.save(task) }
            let applied = try await server.applications()
            #expect(applied.map(\.kind) == ["create"], "the second save is the first one again")
            #expect(applied.first?.idempotencyKey == "change-1-create")
            #expect(
                try await server.hostilityCounts()["replayed"] == 2,
                "the PUT's 404 and the POST's 201, replayed")

            switches.honourIdempotencyKeys = false
            try await server.setSwitches(switches)
            try await withIdempotencyKey("change-1") { try await tasks.save(task) }
            #expect(
                try await server.applications(since: 1).map(\.kind) == ["replace"],
                "switched off, the same request is applied again")
        }
    }

    @Test func datesAreKeptToTheMillisecondAtAnotherOffsetAndEveryWriteIsStamped() async throws {
        try await withFramework(.fastAPI) { server in
            var switches = FastAPISwitches()
            switches.normalizeDates = true
            switches.stampUpdatedAt = true
            try await server.setSwitches(switches)
            let url = server.root.appending(path: "tasks/")
            let tasks = HTTPRepository<TrackedTask>(baseURL: url, configuration: .fastAPI())
            let sent = TrackedTask.make(2, change: 3)
            try await tasks.save(sent)
            let stored = try #require(try await tasks.fetch(id: sent.id))
            #expect(stored != sent)
            #expect(stored.isStoredCopy(of: sent), "the same change, up to its date and stamp: \(stored)")
            #expect(
                stored.dueAt != sent.dueAt, "the microseconds are gone: \(String(describing: stored.dueAt))")
            #expect(stored.updatedAt != nil)
            let raw = String(
                decoding: try await server.raw(url.appending(path: sent.id.uuidString)), as: UTF8.self)
            #expect(raw.contains(".123000+02:00"), "\(raw)")
        }
    }

    @Test(arguments: ["drop", "504"])
    func aChangeWhoseAnswerWasLostStaysPendingAndIsAppliedOnce(lostAs mode: String) async throws {
        try await withFramework(.fastAPI) { server in
            var switches = FastAPISwitches()
            switches.normalizeDates = true
            switches.stampUpdatedAt = true
            switches.honourIdempotencyKeys = true
            switches.loseNext = 1
            switches.lostAnswer = mode
            try await server.setSwitches(switches)
            let device = try await FastAPIDevice(server)
            let batch = (1...3).map { TrackedTask.make($0, change: $0) }
            try await device.tasks.save(contentsOf: batch)
            let error = await #expect(throws: RepositoryError.self) { try await device.tasks.sync() }
            #expect(error?.code == .unavailable, "\(String(describing: error))")
            #expect(try await device.outbox.changes().count == 3, "nothing heard, nothing acknowledged")
            try await device.tasks.sync()
            #expect(try await device.outbox.changes().isEmpty)
            #expect(try await server.applications().map(\.kind) == ["create", "create", "create"])
            #expect(try await server.hostilityCounts()["lost"] == 1)
            let here = try await device.local.fetchAll().sorted { $0.id.uuidString < $1.id.uuidString }
            let there = try await device.remote.fetchAll().sorted { $0.id.uuidString < $1.id.uuidString }
            #expect(here == there, "the device holds what the server stored")
        }
    }

    @Test func aWriteArrivingAfterTheClientTimedOutIsAppliedOnce() async throws {
        try await withFramework(.fastAPI) { server in
            var switches = FastAPISwitches()
            switches.stampUpdatedAt = true
            switches.honourIdempotencyKeys = true
            switches.answerLate = 1
            switches.lateDelay = 3
            try await server.setSwitches(switches)
            var configuration = HTTPRepository<TrackedTask>.Configuration.fastAPI()
            configuration.timeout = .seconds(2)
            let device = try await FastAPIDevice(server, configuration: configuration)
            let task = TrackedTask.make(7, change: 1)
            try await device.tasks.save(task)
            let error = await #expect(throws: RepositoryError.self) { try await device.tasks.sync() }
            #expect(error?.code == .timedOut, "\(String(describing: error))")
            // Again, as an app would, until a sync is answered in time (one may wait behind the
            // late request on its connection); then the late request lands, under its key.
            var syncs = 1
            while try await !device.outbox.changes().isEmpty && syncs < 6 {
                syncs += 1
                do {
                    try await device.tasks.sync()
                } catch let error as RepositoryError where error.code == .timedOut {
                    continue
                }
            }
            var counts = try await server.hostilityCounts()
            for _ in 0..<50 where counts["late_landed"] != 1 {
                try await Task.sleep(for: .milliseconds(200))
                counts = try await server.hostilityCounts()
            }
            #expect(counts["late"] == 1 && counts["late_landed"] == 1, "\(counts)")
            let applied = try await server.applications().map(\.kind)
            #expect(applied == ["create"], "the late PUT found its key's 404 kept: \(applied), \(counts)")
            #expect(try await device.outbox.changes().isEmpty, "after \(syncs) syncs")
        }
    }

    @Test func aRefusedTaskStopsABatchAfterTheOnesBeforeItAndIfNoneMatchGuardsAPut() async throws {
        try await withFramework(.fastAPI) { server in
            var switches = FastAPISwitches()
            switches.refuse = [TrackedTask.id(2)]
            try await server.setSwitches(switches)
            let url = server.root.appending(path: "tasks/")
            let tasks = HTTPRepository<TrackedTask>(baseURL: url, configuration: .fastAPI())
            let batch = (1...3).map { TrackedTask.make($0, change: $0) }
            let error = await #expect(throws: RepositoryError.self) {
                try await tasks.save(contentsOf: batch)
            }
            #expect(error?.code == .rejected && error?.httpStatus == 422, "\(String(describing: error))")
            #expect(
                error?.id?.lowercased() == TrackedTask.id(2).uuidString.lowercased(),
                "\(String(describing: error))")
            #expect(try await server.applications().map(\.id) == [TrackedTask.id(1).uuidString.lowercased()])

            #expect(try await put(url.appending(path: TrackedTask.id(1).uuidString), ifNoneMatch: "*") == 412)
            #expect(try await put(url.appending(path: TrackedTask.id(9).uuidString), ifNoneMatch: "*") == 404)
            #expect(try await server.applications().count == 1)
        }
    }

    /// Finding of issue 23's FastAPI crash run, in its smallest form: the FastAPI preset saves
    /// a task the server does not have as `PUT` (404), then `POST`. When a create's answer was
    /// lost and the change went out again under its own key as a `PUT`, a server that keeps
    /// only the answers of requests that applied something (as `HostileRemote` does) had no
    /// answer for that key and replaced the task the lost `POST` created: applied twice. A
    /// create with no base now goes out as `saveIfAbsent` (the `POST` alone), and the next
    /// sync sends that very request again under its key: the server answers from its record.
    @Test func aCreateWhoseAnswerWasLostIsAppliedOnceByAServerKeepingOnlyAppliedAnswers() async throws {
        try await withFramework(.fastAPI) { server in
            var switches = FastAPISwitches()
            switches.normalizeDates = true
            switches.stampUpdatedAt = true
            switches.honourIdempotencyKeys = true
            switches.keepAnswers = "applied"
            switches.loseNext = 1
            try await server.setSwitches(switches)
            let device = try await FastAPIDevice(server)
            try await device.tasks.save(TrackedTask.make(1, change: 1))
            await #expect(throws: RepositoryError.self) { try await device.tasks.sync() }
            try await device.tasks.sync()
            #expect(try await device.outbox.changes().isEmpty)
            let applied = try await server.applications()
            #expect(
                applied.map(\.kind) == ["create"],
                "\(applied.map { "\($0.kind) \($0.idempotencyKey ?? "-")" })")
        }
    }

    /// A `PUT` of a task with `If-None-Match`; the status answered.
    private func put(_ url: URL, ifNoneMatch: String) async throws -> Int {
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"title": "put over it"}"#.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

/// A device over the FastAPI app's `/tasks/`: a file store and an outbox in a temporary
/// directory, offline-first, synced only when asked.
private struct FastAPIDevice {
    let directory: TemporaryDirectory
    let local: FileRepository<TrackedTask>
    let outbox: Outbox<TrackedTask>
    let remote: HTTPRepository<TrackedTask>
    let tasks: OfflineFirstRepository<HTTPRepository<TrackedTask>, FileRepository<TrackedTask>>

    init(_ server: FixtureServer, configuration: HTTPRepository<TrackedTask>.Configuration = .fastAPI())
        async throws
    {
        directory = try TemporaryDirectory()
        local = try await FileRepository(fileURL: directory.file("device.store"))
        outbox = try await Outbox(fileURL: directory.file("device.outbox"))
        remote = HTTPRepository(baseURL: server.root.appending(path: "tasks/"), configuration: configuration)
        tasks = remote.offlineFirst(
            local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
    }
}
