import RepositoriesTesting
import Testing

@Suite struct GateTests {
    @Test func aCallWaitsAtAClosedGateUntilItOpens() async {
        let gate = Gate()
        let passed = LockedBox(false)
        let call = Task {
            await gate.pass()
            passed.update { $0 = true }
        }
        await gate.waitForArrival()
        #expect(gate.arrivals == 1)
        #expect(!passed.value)
        gate.open()
        await call.value
        #expect(passed.value)
        #expect(gate.isOpen)
    }

    @Test func anOpenGateLetsEveryLaterCallThrough() async {
        let gate = Gate()
        gate.open()
        await gate.pass()
        await gate.pass()
        #expect(gate.arrivals == 2)
    }

    @Test func eachWaitForArrivalWaitsForTheNextCall() async {
        let gate = Gate()
        let first = Task { await gate.pass() }
        await gate.waitForArrival()
        #expect(gate.arrivals == 1)
        let second = Task { await gate.pass() }
        await gate.waitForArrival()
        #expect(gate.arrivals == 2)
        gate.open()
        await first.value
        await second.value
    }

    @Test func anArrivalBeforeTheTestWaitsIsNotMissed() async {
        let gate = Gate()
        gate.open()
        await gate.pass()
        await gate.waitForArrival()  // returns: the arrival already happened
        #expect(gate.arrivals == 1)
    }

    @Test func aCancelledCallStopsWaiting() async {
        let gate = Gate()
        let call = Task {
            await gate.pass()
            return Task.isCancelled
        }
        await gate.waitForArrival()
        call.cancel()
        #expect(await call.value)
        #expect(!gate.isOpen)
    }

    @Test func aCallAlreadyCancelledDoesNotWait() async {
        let gate = Gate()
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await gate.pass()
        }
        await call.value
        #expect(gate.arrivals == 1)
    }

    @Test func gatesAreHandedOutInOrderOfArrivalAndOpenedInTheTestsOrder() async {
        let gates = Gates(count: 2)
        let answered = LockedBox<[Int]>([])
        let first = Task {
            let call = await gates.pass()
            answered.update { $0.append(call) }
        }
        await gates[0].waitForArrival()
        let second = Task {
            let call = await gates.pass()
            answered.update { $0.append(call) }
        }
        await gates[1].waitForArrival()
        #expect(answered.value.isEmpty)

        gates[1].open()
        await second.value
        #expect(answered.value == [1])
        gates[0].open()
        await first.value
        #expect(answered.value == [1, 0])
        #expect(gates.count == 2)
    }
}
