extension RepositoryConformance {
    /// Checks the laws of `areas` and reports each broken law as its own test failure at the
    /// caller's line, under Swift Testing or XCTest, whichever runs the test.
    ///
    /// ```swift
    /// @Test func fileRepositoryConforms() async {
    ///     await RepositoryConformance(makeRepository: { try await makeStore() }).expectConformance()
    /// }
    ///
    /// final class StoreTests: XCTestCase {
    ///     func testConforms() async {
    ///         await RepositoryConformance(makeRepository: { try await makeStore() }).expectConformance()
    ///     }
    /// }
    /// ```
    ///
    /// Skipped laws are not failures; they are in the returned report.
    @discardableResult
    public func expectConformance(
        _ areas: [ConformanceArea] = ConformanceArea.allCases,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) async -> ConformanceReport? {
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let report: ConformanceReport
        do {
            report = try await evaluate(areas)
        } catch {
            reportTestFailure("RepositoryConformance could not run: \(error)", at: location)
            return nil
        }
        for violation in report.violations {
            reportTestFailure("RepositoryConformance (seed \(report.seed)) \(violation)", at: location)
        }
        return report
    }
}
