import ExampleSupport
import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

@testable import Todo

/// The example's real stack: the switched API, and the device's journal and outbox in a
/// temporary directory, closed and opened again as an app restarts.
@Suite struct TodoDeviceTests {
    private let directory: TemporaryDirectory
    private let server = InMemoryRepository<Todo>()
    private let network = NetworkSwitch()
    private let api: SwitchedRepository<AnyRepository<Todo, UUID>>

    init() throws {
        directory = try TemporaryDirectory()
        api = SwitchedRepository(AnyRepository(server), network: network, name: "The test API")
    }

    @Test func offlineEditsSurviveARestartAndOneSyncBringsThemToTheAPI() async throws {
        let milk = Todo.make(index: 1, text: "Buy milk")
        let report = Todo.make(index: 2, text: "Write the report")
        let device = try await TodoDevice(in: directory.url, api: api)
        try await device.todos.save(contentsOf: [milk, report])
        try await device.todos.sync()
        network.goOffline()

        var done = milk
        done.isDone = true
        try await device.todos.save(done)
        try await device.todos.delete(id: report.id)
        try await device.close()
        #expect(try await server.fetchAll() == [milk, report], "nothing reached the API offline")

        let reopened = try await TodoDevice(in: directory.url, api: api)
        #expect(try await reopened.todos.fetchAll() == [done])
        #expect(try await reopened.files.outbox.changes().map(\.id) == [milk.id, report.id])
        network.goOnline()
        try await reopened.todos.sync()

        #expect(try await server.fetchAll() == [done])
        #expect(try await reopened.files.outbox.changes().isEmpty)
        try await reopened.close()
    }

    @Test func aSyncPostponedOfflineKeepsEveryChangeWaiting() async throws {
        network.goOffline()
        let device = try await TodoDevice(in: directory.url, api: api)
        try await device.todos.save(Todo.make(index: 1, text: "Buy milk"))

        await #expect {
            try await device.todos.sync()
        } throws: { error in
            (error as? RepositoryError)?.code == .unavailable
        }

        #expect(try await device.files.outbox.changes().count == 1)
        #expect(try await server.count() == 0)
        try await device.close()
    }
}
