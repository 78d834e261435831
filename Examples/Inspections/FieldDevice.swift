import ExampleSupport
import Foundation
import Repositories
import RepositoriesSQLite

/// One process's stack on the device's `inspections.sqlite`: the two tables, the sync group
/// and its two offline-first repositories. The app opens one, and so does the share
/// extension, in its own process, on the same file.
struct FieldDevice: Sendable {
    /// The database in the app group's container: both tables, their pending changes, and the
    /// group's order of changes.
    let file: URL
    let group: SyncGroup
    let inspectionTable: SQLiteRepository<Inspection>
    let findingTable: SQLiteRepository<Finding>
    let inspections: OfflineFirstRepository<API<Inspection>, SQLiteRepository<Inspection>>
    let findings: OfflineFirstRepository<API<Finding>, SQLiteRepository<Finding>>

    /// A collection of the API, as the app reaches it: through the network switch.
    typealias API<Entity: Identifiable & Sendable> = SwitchedRepository<AnyRepository<Entity, Int>>
    where Entity.ID == Int

    /// Opens `directory/inspections.sqlite` over `api`. Automatic sync is off: nothing is sent
    /// until the group syncs, so the story shows each step.
    ///
    /// - Throws: what opening the database, its tables and their outboxes throws; nothing is
    ///   left open then.
    init(in directory: URL, api: InspectionsAPI) async throws {
        file = directory.appending(path: "inspections.sqlite")
        group = SyncGroup(fileURL: file)
        inspectionTable = try await SQLiteRepository<Inspection>(fileURL: file)
        var opened: [@Sendable () async throws -> Void] = [
            { [inspectionTable] in try await inspectionTable.close() }
        ]
        do {
            findingTable = try await SQLiteRepository<Finding>(fileURL: file)
            opened.insert({ [findingTable] in try await findingTable.close() }, at: 0)
            inspections = try await api.inspections.offlineFirst(
                local: inspectionTable, group: group, automaticSync: nil)
            opened.insert({ [inspections] in try await inspections.outbox.close() }, at: 0)
            findings = try await api.findings.offlineFirst(
                local: findingTable, group: group, dependsOn: Finding.dependencies, automaticSync: nil)
        } catch {
            for close in opened {
                do { try await close() } catch {}
            }
            throw error
        }
    }

    /// Closes the outboxes, then the tables; every close is tried, the first error thrown.
    func close() async throws {
        var failure: (any Error)?
        do { try await findings.outbox.close() } catch { failure = error }
        do { try await inspections.outbox.close() } catch { failure = failure ?? error }
        do { try await findingTable.close() } catch { failure = failure ?? error }
        do { try await inspectionTable.close() } catch { failure = failure ?? error }
        if let failure { throw failure }
    }
}
