import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The server keeps titles in lower case.
@Sendable private func lowercasingTitles(_ entity: Item) -> Item {
    var entity = entity
    entity.title = entity.title.lowercased()
    return entity
}

/// What the server answered for a write becomes the base of the later change of that ID
/// (issue 23: "What the server answered for a write (its echo, its ETag) becomes the version
/// later changes of that ID are based on, so the engine never takes its own write for
/// someone else's").
@Suite struct OfflineFirstWriteEchoTests {
    @Test func aChangeMadeWhileTheLastWasOnItsWayIsBasedOnWhatTheServerStored() async throws {
        let server = HostileRemote<Item>([item(1, 0)])
        server.normalize(lowercasingTitles)
        let gates = Gates(count: 2)
        let device = try await FileDevice(GatedSaves(base: server, gates: gates))
        try await device.repository.sync()  // reads only: no save passes a gate
        try await device.repository.save(item(1, 1))
        let sync = Task { _ = try await device.repository.sync() }
        await gates[0].waitForArrival()
        try await device.repository.save(item(1, 2))  // the user edits again, title included
        gates[0].open()
        try await sync.value
        gates[1].open()
        try await device.repository.sync()

        // The second change was based on the server's lowercased copy of the first, so the
        // server's rewriting was no conflict, and the user's new title was sent and kept.
        #expect(try await server.fetch(id: 1) == lowercasingTitles(item(1, 2)))
        #expect(server.timesApplied(item(1, 2)) == 1)
        #expect(server.overapplied.isEmpty)
        #expect(try await device.repository.snapshot(Query()).conflicts.isEmpty, "no conflict with itself")
        #expect(try await device.outbox.changes().isEmpty)
        try await device.close()
    }

    @Test func anEchoOfAnotherTypeIsIgnoredAndTheSentVersionIsTheBase() async throws {
        let echo = WriteEcho()
        WriteEcho.$listener.withValue(echo) {
            WriteEcho.report("not an item")
            WriteEcho.report(item(1, 1))
            WriteEcho.report(item(1, 2))  // reported twice for one ID: the later
        }
        #expect(echo.stored(Item.self) == [1: item(1, 2)])
        WriteEcho.report(item(3))  // no listener: nothing heard
        #expect(echo.stored(Item.self).count == 1)
    }
}
