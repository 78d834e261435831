import RepositoriesTesting
import Testing

@testable import Repositories

/// The lock's ordering, proven by holding each critical section at a gate and queueing the
/// waiters one by one (each queued before the next starts), then opening in a chosen order.
@Suite struct KeyedAsyncLockTests {
    /// Runs `name`'s critical section over `scope` in a new task: it logs its name on entry
    /// and then waits at `gate`, when one is given.
    private func hold(
        _ lock: KeyedAsyncLock<Int>, _ scope: KeyScope<Int>, as name: String, log: Shared<[String]>,
        at gate: Gate? = nil
    ) -> Task<Void, Never> {
        Task {
            await lock.withLock(scope) {
                log.update { $0.append(name) }
                await gate?.pass()
            }
        }
    }

    /// Starts `name`'s section and returns once it is queued behind the holders.
    private func queue(
        _ lock: KeyedAsyncLock<Int>, _ scope: KeyScope<Int>, as name: String, log: Shared<[String]>
    ) async -> Task<Void, Never> {
        let waiters = lock.waiterCount
        let task = hold(lock, scope, as: name, log: log)
        #expect(await eventually { lock.waiterCount == waiters + 1 }, "\(name) did not queue")
        return task
    }

    @Test func conflictingWaitersTakeTheKeyInTheOrderTheyArrived() async {
        let lock = KeyedAsyncLock<Int>()
        let log = Shared<[String]>([])
        let gate = Gate()
        let holder = hold(lock, .key(1), as: "holder", log: log, at: gate)
        await gate.waitForArrival()
        var waiters: [Task<Void, Never>] = []
        for name in ["a", "b", "c", "d"] {
            waiters.append(await queue(lock, .key(1), as: name, log: log))
        }
        #expect(log.value == ["holder"])

        gate.open()
        await holder.value
        for waiter in waiters { await waiter.value }
        #expect(log.value == ["holder", "a", "b", "c", "d"])
    }

    @Test func aHolderExcludesOthersUntilItsSectionEnds() async {
        let lock = KeyedAsyncLock<Int>()
        let log = Shared<[String]>([])
        let gates = Gates(count: 2)
        let first = Task {
            await lock.withLock(.key(1)) {
                log.update { $0.append("first in") }
                _ = await gates.pass()
                log.update { $0.append("first out") }
            }
        }
        await gates[0].waitForArrival()
        let second = Task {
            await lock.withLock(.key(1)) {
                log.update { $0.append("second in") }
                _ = await gates.pass()
                log.update { $0.append("second out") }
            }
        }
        #expect(await eventually { lock.waiterCount == 1 })
        gates[1].open()  // the second is free to finish at once, but must not start yet
        #expect(log.value == ["first in"])
        gates[0].open()
        await first.value
        await second.value
        #expect(log.value == ["first in", "first out", "second in", "second out"])
    }

    @Test func nonConflictingScopesRunTogether() async {
        let lock = KeyedAsyncLock<Int>()
        let log = Shared<[String]>([])
        let gate = Gate()
        let holder = hold(lock, .keys([1, 2]), as: "holder of 1 and 2", log: log, at: gate)
        await gate.waitForArrival()

        let other = hold(lock, .keys([3, 4]), as: "holder of 3 and 4", log: log)
        await other.value  // finishes while 1 and 2 are held
        #expect(log.value == ["holder of 1 and 2", "holder of 3 and 4"])
        #expect(lock.waiterCount == 0)

        gate.open()
        await holder.value
    }

    @Test func aLaterWaiterThatConflictsWithNoEarlierOneIsNotHeldBack() async {
        let lock = KeyedAsyncLock<Int>()
        let log = Shared<[String]>([])
        let gate = Gate()
        let holder = hold(lock, .key(1), as: "holder", log: log, at: gate)
        await gate.waitForArrival()
        let waiter = await queue(lock, .key(1), as: "waiter for 1", log: log)

        await hold(lock, .key(2), as: "caller for 2", log: log).value
        #expect(log.value == ["holder", "caller for 2"])

        gate.open()
        await holder.value
        await waiter.value
        #expect(log.value == ["holder", "caller for 2", "waiter for 1"])
    }

    @Test func aWaiterNeverOvertakesAnEarlierConflictingOneEvenWhenItsKeysAreFree() async {
        let lock = KeyedAsyncLock<Int>()
        let log = Shared<[String]>([])
        let gate = Gate()
        let holder = hold(lock, .key(1), as: "holder of 1", log: log, at: gate)
        await gate.waitForArrival()
        let early = await queue(lock, .keys([1, 2]), as: "waiter for 1 and 2", log: log)
        // Key 2 is free, but the earlier waiter wants it too: the later one queues behind it.
        let late = await queue(lock, .key(2), as: "waiter for 2", log: log)
        #expect(log.value == ["holder of 1"])

        gate.open()
        await holder.value
        await early.value
        await late.value
        #expect(log.value == ["holder of 1", "waiter for 1 and 2", "waiter for 2"])
    }

    @Test func holdingEveryKeyExcludesEveryone() async {
        let lock = KeyedAsyncLock<Int>()
        let log = Shared<[String]>([])
        let gate = Gate()
        let holder = hold(lock, .all, as: "holder of all", log: log, at: gate)
        await gate.waitForArrival()
        let one = await queue(lock, .key(1), as: "waiter for 1", log: log)
        let two = await queue(lock, .key(2), as: "waiter for 2", log: log)
        let all = await queue(lock, .all, as: "waiter for all", log: log)
        #expect(log.value == ["holder of all"])

        gate.open()
        await holder.value
        await one.value
        await two.value
        await all.value
        // 1 and 2 run together once the holder leaves; the waiter for all comes after both.
        #expect(log.value.count == 4)
        #expect(log.value.first == "holder of all")
        #expect(Set(log.value[1...2]) == ["waiter for 1", "waiter for 2"])
        #expect(log.value.last == "waiter for all")
    }

    @Test func aWaiterForEveryKeyWaitsForEveryHolderAndHoldsBackLaterCallers() async {
        let lock = KeyedAsyncLock<Int>()
        let log = Shared<[String]>([])
        let gates = Gates(count: 2)
        let first = hold(lock, .key(1), as: "holder of 1", log: log, at: gates[0])
        await gates[0].waitForArrival()
        let second = hold(lock, .key(2), as: "holder of 2", log: log, at: gates[1])
        await gates[1].waitForArrival()
        let all = await queue(lock, .all, as: "waiter for all", log: log)
        // Key 3 is free, but the earlier waiter for every key conflicts with it.
        let three = await queue(lock, .key(3), as: "waiter for 3", log: log)

        gates[0].open()
        await first.value
        #expect(log.value == ["holder of 1", "holder of 2"])  // key 2 is still held
        gates[1].open()
        await second.value
        await all.value
        await three.value
        #expect(log.value == ["holder of 1", "holder of 2", "waiter for all", "waiter for 3"])
    }

    @Test func aSectionThatThrowsReleasesItsKeys() async {
        struct Failure: Error {}
        let lock = KeyedAsyncLock<Int>()
        await #expect(throws: Failure.self) {
            try await lock.withLock(1) { throw Failure() }
        }
        #expect(await lock.withLock(1) { 42 } == 42)
        #expect(lock.waiterCount == 0)
    }
}
