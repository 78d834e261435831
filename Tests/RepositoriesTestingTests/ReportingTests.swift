import Repositories
import RepositoriesTesting
import Testing
import XCTest

/// `expectConformance()` reports each broken law at the caller's line, under Swift Testing…
@Suite struct SwiftTestingReportingTests {
    @Test func eachBrokenLawIsReportedAtTheCallersLine() async {
        let suite = RepositoryConformance(
            options: ConformanceOptions(seed: 3),
            makeRepository: { BrokenRepository<ConformanceEntity>(.throwsOnAbsentDelete) })
        let expectedLine = #line + 2
        let reported = await capturingTestFailures {
            await suite.expectConformance([.basics])
        }
        // One failure per broken law: deleting an absent ID throws, and so does delete(ids:) over one.
        #expect(reported.count == 2, "\(reported)")
        #expect(reported.allSatisfy { $0.line == expectedLine && $0.fileID == #fileID })
        #expect(reported.allSatisfy { $0.message.contains("RepositoryConformance (seed 3)") })
        #expect(reported.contains { $0.message.contains("deleteOfAbsentIDSucceeds") })
        #expect(reported.contains { $0.message.contains("deleteIDsRemovesOnlyThose") })
    }

    /// Outside `capturingTestFailures`, a failure is a Swift Testing issue at the caller's line
    /// (the one known issue this suite prints).
    @Test func aFailureIsAnIssueAtTheCallersLine() async {
        let repository = AnyRepository<ConformanceEntity, Int>.unimplemented("products")
        let expectedLine = #line - 1  // an unimplemented endpoint reports where it was made
        await withKnownIssue {
            await #expect(throws: UnimplementedEndpointError.self) { try await repository.count() }
        } matching: { issue in
            issue.sourceLocation?.line == expectedLine && issue.sourceLocation?.fileID == #fileID
                && issue.description.contains("products.count()")
        }
    }

    @Test func aConformingStoreReportsNothing() async throws {
        let report = await RepositoryConformance(makeRepository: { InMemoryRepository<ConformanceEntity>() })
            .expectConformance([.basics, .ordering])
        #expect(report?.violations.isEmpty == true)
        #expect(report?.passed.isEmpty == false)
    }
}

/// …and under XCTest, where the failure is caught by overriding the test case's recorder.
final class XCTestReportingTests: XCTestCase {
    private var recorded: [(message: String, line: Int)] = []
    private var capturing = false

    #if canImport(ObjectiveC)
        override func record(_ issue: XCTIssue) {
            guard capturing else { return super.record(issue) }
            recorded.append((issue.compactDescription, issue.sourceCodeContext.location?.lineNumber ?? -1))
        }
    #else
        override func recordFailure(
            withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
            expected: Bool
        ) {
            guard capturing else {
                return super.recordFailure(
                    withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
            }
            recorded.append((description, lineNumber))
        }
    #endif

    func testEachBrokenLawIsReportedAtTheCallersLine() async {
        let suite = RepositoryConformance(
            options: ConformanceOptions(seed: 5),
            makeRepository: { BrokenRepository<ConformanceEntity>(.reversedOrder) })
        capturing = true
        let expectedLine = #line + 1
        await suite.expectConformance([.ordering])
        capturing = false
        XCTAssertEqual(recorded.count, 3, "one failure per broken ordering law: \(recorded.map(\.message))")
        XCTAssertTrue(
            recorded.allSatisfy { $0.line == expectedLine }, "\(recorded.map(\.line)) vs \(expectedLine)")
        XCTAssertTrue(recorded.contains { $0.message.contains("fetchAllKeepsInsertionOrder") })
    }

    func testAConformingStorePassesUnderXCTest() async {
        await RepositoryConformance(makeRepository: { InMemoryRepository<ConformanceEntity>() })
            .expectConformance()
    }
}
