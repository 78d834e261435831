extension ChangeFeedConformance {
    /// Checks `laws` and reports each broken law as its own test failure at the caller's
    /// line, under Swift Testing or XCTest, whichever runs the test.
    ///
    /// ```swift
    /// @Test func feedConforms() async {
    ///     await ChangeFeedConformance(makeRepository: { InMemoryRepository<ConformanceEntity>() })
    ///         .expectConformance()
    /// }
    /// ```
    ///
    /// Skipped laws are not failures; they are in the returned report. Returns `nil`, having
    /// reported why, when the suite could not start.
    @discardableResult
    public func expectConformance(
        _ laws: [ChangeFeedLaw] = ChangeFeedLaw.allCases,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) async -> ChangeFeedConformanceReport? {
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let report: ChangeFeedConformanceReport
        do {
            report = try await evaluate(laws)
        } catch {
            reportTestFailure("ChangeFeedConformance could not run: \(error)", at: location)
            return nil
        }
        for violation in report.violations {
            reportTestFailure("ChangeFeedConformance (seed \(report.seed)) \(violation)", at: location)
        }
        return report
    }
}
