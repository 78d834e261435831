import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesSQLite
import RepositoriesTestSupport
import Testing

/// A finding of the FastAPI fixture's `/findings/`, which names its task and is refused (422)
/// when the task does not exist.
struct TaskFinding: Codable, Identifiable, Sendable, Equatable {
    var id: UUID
    var taskID: UUID
    var note: String

    // `.fastAPI()` writes keys in snake case: `task_id` reads back as `taskId`.
    enum CodingKeys: String, CodingKey {
        case id, note
        case taskID = "taskId"
    }

    @Sendable static func dependencies(_ change: PendingChange<TaskFinding>) -> [SyncDependency] {
        guard case .save(let finding) = change.kind else { return [] }
        return [SyncDependency(TrackedTask.self, id: finding.taskID)]
    }
}

/// A `SyncGroup` of tasks and their findings over the real FastAPI app, made hostile (it
/// loses a fifth of its answers after applying them, keeps dates to the millisecond, stamps
/// every write, honours idempotency keys), while a second instance on the same database (an
/// extension) adds findings to the tasks it reads, synced or not: the app never refuses a
/// finding for want of its task, applies every change once, and ends with what the device has.
@Suite(.serialized, .timeLimit(.minutes(30))) struct SyncGroupOverFastAPITests {
    /// One process's group on the device's database.
    struct Device: Sendable {
        let group: SyncGroup
        let taskTable: SQLiteRepository<TrackedTask>
        let findingTable: SQLiteRepository<TaskFinding>
        let tasks:
            OfflineFirstRepository<
                RetryingRepository<HTTPRepository<TrackedTask>>, SQLiteRepository<TrackedTask>
            >
        let findings:
            OfflineFirstRepository<
                RetryingRepository<HTTPRepository<TaskFinding>>, SQLiteRepository<TaskFinding>
            >

        init(_ url: URL, server: FixtureServer) async throws {
            group = SyncGroup(fileURL: url)
            taskTable = try await SQLiteRepository<TrackedTask>(fileURL: url)
            findingTable = try await SQLiteRepository<TaskFinding>(fileURL: url)
            tasks = try await HTTPRepository<TrackedTask>(
                baseURL: server.root.appending(path: "tasks/"), configuration: .fastAPI()
            )
            .retrying(.default).offlineFirst(local: taskTable, group: group, automaticSync: nil)
            findings = try await HTTPRepository<TaskFinding>(
                baseURL: server.root.appending(path: "findings/"), configuration: .fastAPI()
            )
            .retrying(.default).offlineFirst(
                local: findingTable, group: group, dependsOn: TaskFinding.dependencies, automaticSync: nil)
        }

        /// Syncs until a sync works: answers are lost on purpose, and in CI's whole run on two
        /// cores the other instance's sync can hold the lock past its wait.
        func syncUntilItWorks() async throws {
            for attempt in 1...40 {
                do {
                    try await group.sync()
                    return
                } catch let error as RepositoryError
                    where [.unavailable, .locked].contains(error.code) && attempt < 40
                {}
            }
        }

        func close() async throws {
            try await findings.outbox.close()
            try await tasks.outbox.close()
            try await findingTable.close()
            try await taskTable.close()
        }
    }

    @Test func anAppAndItsExtensionSyncTasksAndFindingsOnceAndInOrder() async throws {
        try await withFramework(.fastAPI) { server in
            var switches = FastAPISwitches()
            switches.honourIdempotencyKeys = true
            switches.normalizeDates = true
            switches.stampUpdatedAt = true
            switches.loseAnswers = 0.2
            switches.seed = 27
            try await server.setSwitches(switches)
            let directory = try TemporaryDirectory()
            let url = directory.file("device.sqlite")
            let app = try await Device(url, server: server)
            let extensionProcess = try await Device(url, server: server)

            let extensionWrites = Task {
                var added = 0
                while added < 10 {
                    if let task = try await extensionProcess.taskTable.fetchAll().randomElement() {
                        try await extensionProcess.findings.save(
                            TaskFinding(id: UUID(), taskID: task.id, note: "shared \(added)"))
                        added += 1
                        if added.isMultiple(of: 5) { try await extensionProcess.syncUntilItWorks() }
                    } else {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }
            }
            for number in 1...10 {
                let task = TrackedTask.make(number, change: 1)
                try await app.tasks.save(task)
                try await app.findings.save(contentsOf: [
                    TaskFinding(id: UUID(), taskID: task.id, note: "first of \(number)"),
                    TaskFinding(id: UUID(), taskID: task.id, note: "second of \(number)"),
                ])
                if number.isMultiple(of: 4) { try await app.syncUntilItWorks() }
            }
            try await extensionWrites.value
            try await app.syncUntilItWorks()

            let counts = try await server.hostilityCounts()
            #expect(counts["orphans_refused"] == 0, "the app refused findings for want of their task")
            #expect((counts["lost"] ?? 0) > 0, "answers were lost: \(counts)")
            let applied = try await server.applications()
            let perChange = Dictionary(
                applied.map { ("\($0.resource) \($0.id) \($0.sent?.title ?? "") \($0.sent?.note ?? "")", 1) },
                uniquingKeysWith: +)
            #expect(perChange.values.allSatisfy { $0 == 1 }, "a change applied twice")
            #expect(try await app.findings.outbox.changes().isEmpty)
            #expect(try await app.tasks.outbox.changes().isEmpty)
            let serverFindings = Set(try await app.findings.remote.fetchAll().map(\.id))
            #expect(serverFindings.count == 10 * 2 + 10)
            #expect(Set(try await app.findingTable.fetchAll().map(\.id)) == serverFindings)
            #expect(try await app.tasks.remote.fetchAll().count == 10)
            try await extensionProcess.close()
            try await app.close()
        }
    }
}
