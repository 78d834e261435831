import ExampleSupport
import Synchronization
import Testing

@Suite struct WithCleanupTests {
    struct Failure: Error, Equatable { var name: String }

    @Test func cleansUpAfterSuccessAndReturnsTheResult() async throws {
        let cleaned = Mutex(0)
        let value = try await withCleanup {
            42
        } cleanup: {
            cleaned.withLock { $0 += 1 }
        }
        #expect(value == 42)
        #expect(cleaned.withLock { $0 } == 1)
    }

    @Test func cleansUpAfterAFailureAndRethrowsTheBodysError() async {
        let cleaned = Mutex(0)
        await #expect(throws: Failure(name: "body")) {
            try await withCleanup {
                throw Failure(name: "body")
            } cleanup: {
                cleaned.withLock { $0 += 1 }
            }
        }
        #expect(cleaned.withLock { $0 } == 1)
    }

    @Test func theBodysErrorWinsOverTheCleanupsAndACleanupErrorAloneIsThrown() async {
        await #expect(throws: Failure(name: "body")) {
            try await withCleanup {
                throw Failure(name: "body")
            } cleanup: {
                throw Failure(name: "cleanup")
            }
        }
        await #expect(throws: Failure(name: "cleanup")) {
            try await withCleanup {
                ()
            } cleanup: {
                throw Failure(name: "cleanup")
            }
        }
    }
}
