import Foundation
import Testing

/// The fixture server itself: it fails loudly without python3, and never outlives a test.
@Suite struct FixtureServerTests {
    @Test func missingPythonIsAFailureWithAPlainMessage() {
        let error = #expect(throws: PythonMissing.self) {
            try FixtureServer.locatePython(path: "/nonexistent-directory")
        }
        #expect(error?.description.hasPrefix("python3 was not found on the PATH") == true)
    }

    @Test func serverIsStoppedEvenWhenTheTestThrows() async throws {
        struct Boom: Error {}
        let started = Started()
        await #expect(throws: Boom.self) {
            try await withFixtureServer { server in
                started.server = server
                throw Boom()
            }
        }
        let server = try #require(started.server)
        #expect(!server.process.isRunning)
    }

    /// Carries the server out of the closure.
    final class Started: @unchecked Sendable {
        // @unchecked: written once inside the closure, read after it returned.
        var server: FixtureServer?
    }
}
