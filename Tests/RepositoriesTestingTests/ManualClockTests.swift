import RepositoriesTesting
import Testing

@Suite struct ManualClockTests {
    @Test func sleepersWakeInDeadlineOrder() async throws {
        let clock = ManualClock()
        let woken = LockedBox<[Int]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for seconds in [3, 1, 2] {
                group.addTask {
                    try await clock.sleep(for: .seconds(seconds))
                    woken.update { $0.append(seconds) }
                }
            }
            await clock.waitForSleepers(count: 3)
            await clock.advance(by: .seconds(3))
            try await group.waitForAll()
        }
        #expect(woken.value == [1, 2, 3])
        #expect(clock.now.offset == .seconds(3))
    }

    @Test func timeDoesNotMoveByItself() async throws {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.waitForSleepers(count: 1)
        await clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 1)
        await clock.advance(by: .milliseconds(1))
        try await task.value
        #expect(clock.sleeperCount == 0)
    }

    @Test func aSleeperThatSleepsAgainWithinTheSpanIsWokenAgain() async throws {
        let clock = ManualClock()
        let wakes = LockedBox(0)
        let task = Task {
            for _ in 0..<3 {
                try await clock.sleep(for: .seconds(1))
                wakes.update { $0 += 1 }
            }
        }
        await clock.waitForSleepers(count: 1)
        await clock.advance(by: .seconds(3))
        try await task.value
        #expect(wakes.value == 3)
    }

    @Test func aPastDeadlineReturnsAtOnce() async throws {
        let clock = ManualClock()
        await clock.advance(by: .seconds(10))
        try await clock.sleep(until: ManualClock.Instant(offset: .seconds(5)))
        #expect(clock.now.offset == .seconds(10))
    }

    @Test func cancellingASleeperThrowsCancellationError() async throws {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers(count: 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func aTaskCancelledBeforeSleepingThrowsAtOnce() async throws {
        let clock = ManualClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(60))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
