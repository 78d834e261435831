import Foundation
import Repositories
import RepositoriesTesting
import Testing

@testable import Todo

/// The push from the device's store to the API.
@Suite struct TodoSyncTests {
    @Test func pushMakesTheAPIHoldExactlyTheDevicesTodos() async throws {
        let device = InMemoryRepository<Todo>([.make(index: 1, text: "kept"), .make(index: 2, text: "new")])
        let api = SpyRepository(
            InMemoryRepository<Todo>([
                .make(index: 1, text: "old text"), .make(index: 3, text: "deleted on device"),
            ]))

        let outcome = try await TodoSync(device: device, api: api).push()

        #expect(outcome == TodoSync.Outcome(pushed: 2, removed: 1))
        #expect(
            try await api.base.fetchAll() == [.make(index: 1, text: "kept"), .make(index: 2, text: "new")])
        #expect(api.operations == [.fetchAll, .saveContentsOf, .deleteIDs])
    }

    @Test func aPushWithNothingToRemoveMakesNoDelete() async throws {
        let device = InMemoryRepository<Todo>([.make(index: 1, text: "one")])
        let api = SpyRepository(InMemoryRepository<Todo>())

        let outcome = try await TodoSync(device: device, api: api).push()

        #expect(outcome == TodoSync.Outcome(pushed: 1, removed: 0))
        #expect(api.operations == [.fetchAll, .saveContentsOf])
    }

    @Test func anUnreachableAPIThrowsAndLeavesBothSidesAlone() async throws {
        let device = InMemoryRepository<Todo>([.make(index: 1, text: "one")])
        let api = FaultInjectingRepository(InMemoryRepository<Todo>([.make(index: 9, text: "server's")]))
        api.failNext(of: .saveContentsOf, with: RepositoryError.unavailable("offline (test)"))

        await #expect(throws: RepositoryError.self) { try await TodoSync(device: device, api: api).push() }

        #expect(try await device.fetchAll() == [.make(index: 1, text: "one")])
        #expect(try await api.base.fetchAll() == [.make(index: 9, text: "server's")])
    }
}
