import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import Testing

/// One pending change the remote refuses before the wire never blocks the others: it becomes
/// rejected with the reason, and every other change reaches the server.
@Suite struct OfflineFirstBadValueTests {
    @Test func aChangeWhoseIDNamesNoResourceIsRejectedAndTheOthersAreSent() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let directory = try TemporaryDirectory()
            let local = try await FileRepository<Label>(fileURL: directory.file("labels.store"))
            let outbox = try await Outbox<Label>(fileURL: directory.file("labels.outbox"))
            let labels = HTTPRepository<Label>(baseURL: url)
                .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
            let kept = [
                Label(id: "a", color: "red"), Label(id: "b", color: "blue"), Label(id: "c", color: "tan"),
            ]
            try await labels.save(kept[0])
            try await labels.save(Label(id: "", color: "green"))
            try await labels.save(kept[1])
            try await labels.save(contentsOf: [Label(id: "..", color: "grey"), kept[2]])
            try await labels.delete(id: ".")

            try await labels.sync()

            #expect(try await HTTPRepository<Label>(baseURL: url).fetchAll() == kept, "the others are sent")
            for id in ["", "..", "."] {
                guard case .rejected(let error) = try await labels.status(of: id) else {
                    Issue.record("the change of \"\(id)\" is rejected: \(try await labels.status(of: id))")
                    continue
                }
                #expect(error.code == .rejected)
                #expect(error.reason.contains("\"\(id)\""), "the reason names the ID: \(error.reason)")
                let change = try #require(try await outbox.change(for: id))
                #expect(change.isRejected && change.lastError?.reason == error.reason)
            }
            let writes = try await server.log(url).filter { $0.method != "GET" }
            #expect(
                writes.allSatisfy { $0.path != url.path && $0.path != url.path + "/" },
                "no write went to the collection: \(writes.map(\.line))")
            for id in ["a", "b", "c"] {
                guard case .synced = try await labels.status(of: id) else {
                    Issue.record("\(id) is synced")
                    continue
                }
            }
            try await labels.sync()
            #expect(
                try await server.log(url).filter { $0.method != "GET" }.count == writes.count,
                "a rejected change is not sent again by itself")
        }
    }

    /// Dates RFC 3339 cannot write: after year 9999, and before year 0.
    @Test(arguments: [253_402_300_800.0, -62_167_219_201.0])
    func aChangeWithADateRFC3339CannotWriteIsRejectedAndTheOthersAreSent(_ seconds: Double) async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let directory = try TemporaryDirectory()
            let local = try await FileRepository<Reminder>(fileURL: directory.file("reminders.store"))
            let outbox = try await Outbox<Reminder>(fileURL: directory.file("reminders.outbox"))
            let reminders = HTTPRepository<Reminder>(baseURL: url)
                .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
            let kept = (1...3).map {
                Reminder(
                    id: UUID(), listName: "home \($0)", dueDate: Date(timeIntervalSince1970: 1_700_000_000))
            }
            let bad = Reminder(id: UUID(), listName: "far", dueDate: Date(timeIntervalSince1970: seconds))
            try await reminders.save(contentsOf: [kept[0], bad, kept[1]])
            try await reminders.save(kept[2])

            try await reminders.sync()

            #expect(
                try await HTTPRepository<Reminder>(baseURL: url).fetchAll() == kept, "the others are sent")
            guard case .rejected(let error) = try await reminders.status(of: bad.id) else {
                Issue.record("the change is rejected: \(try await reminders.status(of: bad.id))")
                return
            }
            #expect(error.code == .encodingFailed)
            #expect(error.reason.contains(bad.id.uuidString), "names the entity: \(error.reason)")
            #expect(error.reason.contains("dueDate"), "names the field: \(error.reason)")
            #expect(
                try await server.log(url).allSatisfy { $0.body?.contains("far") != true },
                "the refused entity never went out")
        }
    }
}
