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
        let reported = LockedBox<[String]>([])
        let expectedLine = #line + 2
        await withKnownIssue {
            await suite.expectConformance([.basics])
        } matching: { issue in
            reported.update { $0.append(issue.description) }
            return issue.sourceLocation?.line == expectedLine && issue.sourceLocation?.fileID == #fileID
                && issue.description.contains("RepositoryConformance (seed 3)")
        }
        // One issue per broken law: deleting an absent ID throws, and so does delete(ids:) over one.
        #expect(reported.value.count == 2)
        #expect(reported.value.contains { $0.contains("deleteOfAbsentIDSucceeds") })
        #expect(reported.value.contains { $0.contains("deleteIDsRemovesOnlyThose") })
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
