import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// An automatic sync that follows a reachability signal: while the network is down, a write
/// starts no sync and a failed sync is not retried on a timer; when the network returns, the
/// waiting changes go out at once.
@Suite struct OfflineFirstReachabilityTests {
    private func syncingByItself(
        over remote: Remote, network: ManualReachability, clock: ManualClock, in directory: TemporaryDirectory
    ) async throws -> OfflineFirstRepository<Remote, InMemoryRepository<Item>> {
        remote.offlineFirst(
            local: InMemoryRepository<Item>(), outbox: try await Outbox<Item>(fileURL: directory.file()),
            conflicts: .lastWriterWins,
            automaticSync: AutomaticSync(
                backoff: RetryPolicy(
                    maxAttempts: 3, baseDelay: .seconds(1), maxDelay: .seconds(4), jitter: .none),
                reachability: network, clock: clock))
    }

    @Test func aWriteWhileTheNetworkIsDownWaitsForItAndGoesOutWhenItReturns() async throws {
        let remote = Remote()
        remote.online = false
        let network = ManualReachability(reachable: false)
        let clock = ManualClock()
        let directory = try TemporaryDirectory()
        let notes = try await syncingByItself(over: remote, network: network, clock: clock, in: directory)
        defer { notes.stopAutomaticSync() }

        try await notes.save(item(1))
        try await notes.save(item(2))
        await clock.advance(by: .seconds(3_600))
        #expect(clock.sleeperCount == 0, "no retry waits on a timer while the network is down")
        #expect(try await notes.outbox.changes().count == 2)

        remote.online = true
        network.set(reachable: true)
        #expect(
            await eventuallyAsync { Set(remote.writes.flatMap(\.ids)) == [1, 2] },
            "the network returned: both went out")
        #expect(await eventuallyAsync { (try? await notes.outbox.changes().isEmpty) == true })
    }

    @Test func aRemoteDownWhileTheNetworkIsUpIsRetriedByBackoffUntilTheNetworkDrops() async throws {
        let remote = Remote()
        remote.online = false
        let network = ManualReachability(reachable: true)
        let clock = ManualClock()
        let directory = try TemporaryDirectory()
        let notes = try await syncingByItself(over: remote, network: network, clock: clock, in: directory)
        defer { notes.stopAutomaticSync() }

        try await notes.save(item(1))
        await clock.waitForSleepers(count: 1)  // the network is up: the backoff paces retries
        network.set(reachable: false)
        // The next failed try sees the network down and waits for it instead of the clock.
        var rounds = 0
        while clock.sleeperCount > 0, rounds < 1_000 {
            await clock.advance(by: .seconds(4))
            await Task.yield()
            rounds += 1
        }
        #expect(await eventuallyAsync { clock.sleeperCount == 0 }, "no timer while the network is down")
        await clock.advance(by: .seconds(3_600))
        #expect(remote.writes.isEmpty)

        remote.online = true
        network.set(reachable: true)
        #expect(
            await eventuallyAsync { remote.writes.count == 1 }, "the network returned: the change went out")
    }

    @Test func theNetworkReturningBringsInWhatOthersWrote() async throws {
        let remote = Remote()
        let network = ManualReachability(reachable: true)
        let clock = ManualClock()
        let directory = try TemporaryDirectory()
        let notes = try await syncingByItself(over: remote, network: network, clock: clock, in: directory)
        defer { notes.stopAutomaticSync() }
        try await notes.sync()  // the first call starts following the signal

        network.set(reachable: false)
        try await remote.base.save(item(7))
        network.set(reachable: true)
        #expect(
            await eventuallyAsync { (try? await notes.local.fetch(id: 7)) != nil },
            "a sync started when the network came back")
    }

    @Test func aManualSignalTellsEachListenerTheValueThenEachChange() async {
        let network = ManualReachability(reachable: true)
        var first = network.reachability().makeAsyncIterator()
        #expect(await first.next() == true)
        network.set(reachable: true)  // no change: nothing sent
        network.set(reachable: false)
        #expect(await first.next() == false)
        var second = network.reachability().makeAsyncIterator()
        #expect(await second.next() == false)
        network.set(reachable: true)
        #expect(await first.next() == true)
        #expect(await second.next() == true)
        #expect(network.isReachable)
    }
}
