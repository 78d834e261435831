import RepositoriesTesting
import Testing

@testable import Repositories

/// One shared call per key, proven with the call held at a gate while callers join.
@Suite struct SingleFlightTests {
    /// An operation that counts its runs, waits at `gate`, records whether its task was
    /// cancelled by then, passes `ended` (open, so it only signals), and answers `value`.
    private final class Operation: Sendable {
        let gate = Gate()
        let ended = Gate()
        let runs = Shared(0)
        let cancelled = Shared<Bool?>(nil)

        init() { ended.open() }

        func callAsFunction(_ value: Int) -> @Sendable () async throws -> Int {
            { [self] in
                runs.update { $0 += 1 }
                await gate.pass()
                let isCancelled = Task.isCancelled
                cancelled.update { $0 = isCancelled }
                await ended.pass()
                if isCancelled { throw CancellationError() }
                return value
            }
        }
    }

    @Test func callersOfOneKeyShareOneCall() async throws {
        let flight = SingleFlight<Int, Int>()
        let operation = Operation()
        let callers = (0..<3).map { _ in Task { try await flight.run(1, operation(10)) } }
        #expect(await eventually { flight.waitingCallerCount == 3 })
        await operation.gate.waitForArrival()

        operation.gate.open()
        for caller in callers { #expect(try await caller.value == 10) }
        #expect(operation.runs.value == 1)
        #expect(flight.waitingCallerCount == 0)
    }

    @Test func eachKeyHasItsOwnCall() async throws {
        let flight = SingleFlight<Int, Int>()
        let one = Operation()
        let two = Operation()
        let first = Task { try await flight.run(1, one(10)) }
        let second = Task { try await flight.run(2, two(20)) }
        await one.gate.waitForArrival()
        await two.gate.waitForArrival()
        one.gate.open()
        two.gate.open()
        #expect(try await first.value == 10)
        #expect(try await second.value == 20)
        #expect(one.runs.value == 1)
        #expect(two.runs.value == 1)
    }

    @Test func aCallerAfterTheCallEndedStartsANewOne() async throws {
        let flight = SingleFlight<Int, Int>()
        let operation = Operation()
        operation.gate.open()
        #expect(try await flight.run(1, operation(10)) == 10)
        #expect(try await flight.run(1, operation(11)) == 11)
        #expect(operation.runs.value == 2)
    }

    @Test func anErrorReachesEveryCaller() async {
        struct Failure: Error {}
        let flight = SingleFlight<Int, Int>()
        let gate = Gate()
        let callers = (0..<2).map { _ in
            Task {
                try await flight.run(1) {
                    await gate.pass()
                    throw Failure()
                }
            }
        }
        #expect(await eventually { flight.waitingCallerCount == 2 })
        gate.open()
        for caller in callers {
            await #expect(throws: Failure.self) { try await caller.value }
        }
    }

    @Test func aCancelledCallerLeavesAtOnceAndTheSharedCallGoesOnForTheOthers() async throws {
        let flight = SingleFlight<Int, Int>()
        let operation = Operation()
        let leaving = Task { try await flight.run(1, operation(10)) }
        let staying = Task { try await flight.run(1, operation(10)) }
        #expect(await eventually { flight.waitingCallerCount == 2 })
        await operation.gate.waitForArrival()

        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(flight.waitingCallerCount == 1)

        operation.gate.open()
        #expect(try await staying.value == 10)
        #expect(operation.cancelled.value == false)  // the first caller's leaving did not cancel it
        #expect(operation.runs.value == 1)
    }

    @Test func theLastCallerLeavingCancelsTheSharedCall() async {
        let flight = SingleFlight<Int, Int>()
        let operation = Operation()
        let first = Task { try await flight.run(1, operation(10)) }
        let second = Task { try await flight.run(1, operation(10)) }
        #expect(await eventually { flight.waitingCallerCount == 2 })
        await operation.gate.waitForArrival()

        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        // The gate lets a cancelled call through, so the call ends without being opened.
        await operation.ended.waitForArrival()
        #expect(operation.cancelled.value == true)
        #expect(!operation.gate.isOpen)
    }

    @Test func aCallerCancelledBeforeItAsksNeverStartsACall() async {
        let flight = SingleFlight<Int, Int>()
        let operation = Operation()
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await flight.run(1, operation(10))
        }
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(operation.runs.value == 0)
        #expect(flight.waitingCallerCount == 0)
    }

    @Test func afterDetachNewCallersStartAFreshCallWhileEarlierOnesGetTheOldAnswer() async throws {
        let flight = SingleFlight<Int, Int>()
        let old = Operation()
        let fresh = Operation()
        let early = Task { try await flight.run(1, old(10)) }
        await old.gate.waitForArrival()

        flight.detach(1)
        let late = Task { try await flight.run(1, fresh(11)) }
        await fresh.gate.waitForArrival()
        fresh.gate.open()
        #expect(try await late.value == 11)
        old.gate.open()
        #expect(try await early.value == 10)
        #expect(old.runs.value == 1)
        #expect(fresh.runs.value == 1)
    }

    @Test func detachAllDetachesEveryKey() async throws {
        let flight = SingleFlight<Int, Int>()
        let old = Operation()
        let fresh = Operation()
        let early = (1...2).map { key in Task { try await flight.run(key, old(key)) } }
        await old.gate.waitForArrival()
        await old.gate.waitForArrival()

        flight.detachAll()
        fresh.gate.open()
        #expect(try await flight.run(1, fresh(11)) == 11)
        #expect(try await flight.run(2, fresh(12)) == 12)
        old.gate.open()
        for (key, caller) in zip(1..., early) { #expect(try await caller.value == key) }
    }
}
