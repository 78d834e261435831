import Foundation
import Observation
import Repositories
import RepositoriesHTTP
import RepositoriesSQLite

/// The Swift snippets of Docs/OfflineFirst.md, verbatim.
struct OfflineFirstSnippets {
    struct Note: Identifiable, Codable, Sendable, Equatable {
        var id: UUID
        var title: String
        var body: String
    }

    /// The introduction: the stack over a FastAPI back-end at `api`, in the app's `directory`.
    func introduction(directory: URL, api: URL, note: Note) async throws -> [Note] {
        // `directory`: a folder the app owns (Application Support on Apple platforms).
        let local = try await FileRepository<Note>(fileURL: directory.appending(path: "notes.store"))
        let outbox = try await Outbox<Note>(fileURL: directory.appending(path: "notes.outbox"))
        let notes = HTTPRepository<Note>(baseURL: api.appending(path: "notes/"), configuration: .fastAPI())
            .retrying(.default)
            .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins)

        try await notes.save(note)  // returns at once, online or not
        let all = try await notes.fetchAll()  // the remote's last known state, this device's changes on top
        try await notes.sync()  // push every pending change in order, then pull
        return all
    }

    /// "Conflicts": a merge.
    func merge(
        api: HTTPRepository<Note>, file: FileRepository<Note>, outbox: Outbox<Note>
    ) -> some SyncingRepository<Note, UUID> {
        let notes = api.offlineFirst(
            local: file, outbox: outbox,
            conflicts: .merge { base, mine, theirs in
                var merged = theirs
                if mine.title != base?.title { merged.title = mine.title }  // my edit of the title wins
                if mine.body != base?.body { merged.body = mine.body }
                return merged
            })
        return notes
    }

    /// "Conflicts": a merge field by field, the remote's value where both changed one.
    func mergeFields(
        api: HTTPRepository<Note>, file: FileRepository<Note>, outbox: Outbox<Note>
    ) -> some SyncingRepository<Note, UUID> {
        let notes = api.offlineFirst(
            local: file, outbox: outbox,
            conflicts: .mergeFields(tie: .remote))  // a field both changed: the server's value
        return notes
    }

    /// "Conflicts": a merge field by field, with a tie per field.
    func mergeFieldsWithATiePerField(
        api: HTTPRepository<Note>, file: FileRepository<Note>, outbox: Outbox<Note>
    ) -> some SyncingRepository<Note, UUID> {
        let notes = api.offlineFirst(
            local: file, outbox: outbox,
            conflicts: .mergeFields(
                tie: .custom { field, _, _, _ in
                    field == "body" ? .local : .remote  // my text wins; the server's title, and the rest
                }))
        return notes
    }

    /// "What is kept of a conflict": what a sync did, and a refusal's field errors in a form.
    func report(notes: some SyncingRepository<Note, UUID>, note: Note) async throws -> [String: [String]] {
        var fieldErrors: [String: [String]] = [:]
        let report = try await notes.sync()
        if let refusal = report.rejections[note.id] {
            fieldErrors = refusal.fieldErrors  // beside each field of the form
        }
        print(report)  // "sent 3, confirmed 3, received 5 (incremental pull), 1 conflict, …"
        return fieldErrors
    }

    /// "Pulling only what changed": why a pull read the whole collection.
    func fullPull(notes: some SyncingRepository<Note, UUID>) async throws {
        let report = try await notes.sync()
        if !report.pullWasIncremental {
            print("full pull: \(report.fullPullReason ?? "")")  // "the remote has no change feed"
        }
    }

    /// "What is kept of a conflict": the conflicts kept, shown and acknowledged.
    @MainActor final class ConflictBanner {
        var banner: String?

        func watch(notes: some SyncingRepository<Note, UUID>) async throws {
            for await conflicts in notes.conflicts() {
                for conflict in conflicts {
                    banner = "\(conflict.entityID): \(conflict.resolution)"  // "merged field by field: …"
                    try await notes.acknowledge(conflict: conflict)
                }
            }
        }
    }

    /// "What the UI shows": the error a change was refused with, beside the entity.
    @MainActor final class NoteRefusal {
        var banner: String?

        func show(note: Note, snapshot: OfflineSnapshot<Note>) {
            if let refusal = snapshot.rejections[note.id] {
                banner = refusal.reason  // offer retry(id:) or discard(id:)
            }
        }
    }

    /// "What the UI shows": a badge, and a count of changes waiting.
    @MainActor final class NoteScreen {
        var badge: String?
        var waiting = 0

        func show(note: Note, notes: some SyncingRepository<Note, UUID>) async throws {
            switch try await notes.status(of: note.id) {
            case .synced: badge = nil
            case .pending(0, _): badge = "waiting"
            case .pending(let attempts, _): badge = "not sent after \(attempts) tries"
            case .rejected(let error): badge = "refused: \(error.reason)"  // offer retry(id:) or discard(id:)
            }

            for await changes in notes.pendingChanges() {
                waiting = changes.count  // "3 changes waiting"
            }
        }
    }

    // "What the UI shows": a view model over any syncing repository.
    @MainActor @Observable final class NotesModel {
        let notes: any SyncingRepository<Note, UUID>
        private(set) var snapshot: OfflineSnapshot<Note>?
        init(notes: any SyncingRepository<Note, UUID>) { self.notes = notes }

        func watch() async throws {
            for try await snapshot in notes.values(Query<Note>().sorted(by: \.title)) {
                self.snapshot = snapshot  // snapshot.pendingIDs.count: "3 changes waiting"
            }
        }
    }

    /// "When sync runs": an interval.
    func interval(
        api: HTTPRepository<Note>, file: FileRepository<Note>, outbox: Outbox<Note>
    ) -> some SyncingRepository<Note, UUID> {
        let notes = api.offlineFirst(
            local: file, outbox: outbox, conflicts: .lastWriterWins,
            automaticSync: AutomaticSync(every: .seconds(300), backoff: .default))
        return notes
    }

    func reachability(api: some Repository<Note, UUID>, file: FileRepository<Note>, outbox: Outbox<Note>)
        -> some SyncingRepository<Note, UUID>
    {
        let network = ManualReachability(reachable: false)
        let notes = api.offlineFirst(
            local: file, outbox: outbox, automaticSync: AutomaticSync(reachability: network))
        network.set(reachable: true)  // from your monitor: the changes waiting go out now
        return notes
    }

    /// "Syncing part of the remote": a chore list shared by a household, each device holding
    /// its user's chores.
    struct Chore: Identifiable, Codable, Sendable, QueryableEntity {
        var id: UUID
        var owner: String
        var title: String

        static let queryableFields: [QueryableField<Chore>] = [QueryableField(\.owner, name: "owner")]
    }

    func subset(directory: URL, api: URL, me: String) async throws -> SyncReport<UUID> {
        var configuration = HTTPRepository<Chore>.Configuration.fastAPI(queries: .lookups())
        configuration.changeFeed = .changesEndpoint(takesSubset: true)  // GET /chores/changes?…&owner=ana
        let local = try await FileRepository<Chore>(fileURL: directory.appending(path: "chores.store"))
        let outbox = try await Outbox<Chore>(fileURL: directory.appending(path: "chores.outbox"))
        let chores = try HTTPRepository<Chore>(
            baseURL: api.appending(path: "chores/"), configuration: configuration
        )
        .retrying(.default)
        .offlineFirst(local: local, outbox: outbox, subset: Query<Chore>().where(\.owner == me))

        let report = try await chores.sync()  // only my chores travel
        return report
    }

    /// "An outbox in the local SQLite database".
    func sqliteOutbox(directory: URL, api: some Repository<Note, UUID>) async throws {
        let local = try await SQLiteRepository<Note>(fileURL: directory.appending(path: "notes.sqlite"))
        let outbox = try await Outbox(in: local)  // tables beside the local one, in notes.sqlite
        let notes = api.offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins)
        _ = notes
    }

    /// "Sharing with an app extension".
    func sharedOutbox(group: URL, api: some Repository<Note, UUID>, badge: (Int) -> Void) async throws {
        let local = try await SQLiteRepository<Note>(fileURL: group.appending(path: "notes.sqlite"))
        let outbox = try await Outbox(in: local)  // the app and the extension, at once
        let notes = api.offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins)
        for await waiting in outbox.pendingChanges() { badge(waiting.count) }  // the other process's too
        _ = notes
    }

    struct Inspection: Identifiable, Codable, Sendable {
        var id: Int
        var site: String
    }

    struct Finding: Identifiable, Codable, Sendable {
        var id: Int
        var inspectionID: Int
        var note: String
    }

    /// "Related types: one sync for inspections and their findings".
    func syncGroup(
        group: URL, inspectionsAPI: some Repository<Inspection, Int>,
        findingsAPI: some Repository<Finding, Int>,
        inspection: Inspection, finding: Finding
    ) async throws -> SyncReport<SyncDependency> {
        let file = group.appending(path: "inspections.sqlite")
        let syncGroup = SyncGroup(fileURL: file)
        let inspections = try await inspectionsAPI.offlineFirst(
            local: try await SQLiteRepository<Inspection>(fileURL: file), group: syncGroup)
        let findings = try await findingsAPI.offlineFirst(
            local: try await SQLiteRepository<Finding>(fileURL: file), group: syncGroup,
            dependsOn: { change in
                guard case .save(let finding) = change.kind else { return [] }
                return [SyncDependency(Inspection.self, id: finding.inspectionID)]
            })

        try await inspections.save(inspection)  // offline: kept in inspections.sqlite
        try await findings.save(finding)  // goes after its inspection
        let report = try await syncGroup.sync()  // the inspections, then the findings
        return report
    }

    /// The group's badge and a held change's reason.
    func groupStatus(
        syncGroup: SyncGroup,
        findings: OfflineFirstRepository<some Repository<Finding, Int>, SQLiteRepository<Finding>>,
        finding: Finding
    ) async throws -> String? {
        var badge: String?
        for await status in syncGroup.status() {
            badge = status.pending == 0 ? nil : "\(status.pending)"
        }
        if case .pending(_, let error?) = try await findings.status(of: finding.id), error.code == .heldBack {
            print(error.reason)  // "Waits for the change to Inspection 7, which the server refused"
        }
        return badge
    }
}
