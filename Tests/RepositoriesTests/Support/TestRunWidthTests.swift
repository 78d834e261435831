import Foundation
import Testing

/// The test binary caps how many test cases run at once (the `TestRunWidth` target): four per
/// core unless the caller chose a width. Without the cap, `swift test` starts every case at
/// once, and on two cores the run held 2,200 descriptors, past the count at which Foundation's
/// `Process.run()` crashes on Linux.
@Suite struct TestRunWidthTests {
    @Test func theRunIsCappedAtFourTestCasesPerCoreUnlessTheCallerChose() throws {
        let width = try #require(
            ProcessInfo.processInfo.environment["SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"],
            "TestRunWidth's constructor did not run: is the target still linked into the test binary?")
        let value = try #require(Int(width), "not a number: \(width)")
        #expect(value >= 1)
    }
}
