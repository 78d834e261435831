import Foundation
import TestRunWidth
import Testing

/// The test binary caps how many test cases run at once (the `TestRunWidth` target): four per
/// core the process may run on, at most 32, unless the caller chose a width. Without the cap,
/// `swift test` starts every case at once, and on two cores the run held 2,200 descriptors,
/// past the count at which Foundation's `Process.run()` can crash on Linux.
@Suite struct TestRunWidthTests {
    @Test func theRunIsCappedAtFourTestCasesPerCoreUnlessTheCallerChose() throws {
        let variable = ProcessInfo.processInfo.environment["SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"]
        let set = testRunWidthSet()
        guard set > 0 else {
            // The caller's own width: the constructor left it as it was.
            #expect(variable != nil, "TestRunWidth's constructor set no width, and the caller none")
            return
        }
        #expect(variable == String(set))
        #expect(set == min(4 * testRunWidthCores(), 32))
        #expect(testRunWidthCores() >= 1)
    }
}
