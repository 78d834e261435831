import Synchronization

#if canImport(Testing)
    import Testing
#endif
#if canImport(XCTest)
    import XCTest
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A place in the caller's source code, captured with the default arguments `#fileID`,
/// `#filePath`, `#line` and `#column`, where a failure is reported.
package struct CallerLocation: Sendable, CustomStringConvertible {
    /// The file's module-qualified ID (`#fileID`).
    package var fileID: String
    /// The file's full path (`#filePath`).
    package var filePath: StaticString
    /// The line.
    package var line: UInt
    /// The column.
    package var column: UInt

    /// Captures the caller's location.
    package init(
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }

    /// `Module/File.swift:line`.
    package var description: String { "\(fileID):\(line)" }
}

/// A failure a checker reported inside ``capturingTestFailures(_:)``, kept instead of recorded.
package struct CapturedTestFailure: Sendable, CustomStringConvertible {
    /// What the checker said.
    package var message: String
    /// The module-qualified ID of the file it reported the failure in.
    package var fileID: String
    /// The line it reported the failure at: the line that called the checker.
    package var line: Int

    package var description: String { "\(fileID):\(line): \(message)" }
}

/// The failures reported while ``capturingTestFailures(_:)`` runs, in the order they came.
private final class TestFailureCollector: Sendable {
    @TaskLocal static var current: TestFailureCollector?

    let failures = Mutex<[CapturedTestFailure]>([])

    /// Keeps the failure when ``capturingTestFailures(_:)`` runs; `false` when it does not.
    static func keep(_ message: String, fileID: String, line: Int) -> Bool {
        guard let collector = current else { return false }
        collector.failures.withLock {
            $0.append(CapturedTestFailure(message: message, fileID: fileID, line: line))
        }
        return true
    }
}

/// Runs `body`, keeping every failure the package's checkers report in it (in this task and
/// the tasks it starts) instead of recording it, and returns them in order.
///
/// For the package's own tests of its checkers: they expect failures, and a test that
/// recorded them as known issues printed each one on every run. Kept here, a failure that
/// comes as expected prints nothing, and one that stops coming fails the test's own
/// expectations.
package func capturingTestFailures(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void
) async rethrows -> [CapturedTestFailure] {
    let collector = TestFailureCollector()
    try await TestFailureCollector.$current.withValue(collector, operation: body)
    return collector.failures.withLock { $0 }
}

/// Reports a test failure at `location`: as a Swift Testing issue inside a Swift Testing
/// test, as an XCTest failure otherwise, and on standard error when neither framework runs;
/// inside ``capturingTestFailures(_:)``, to its caller instead.
package func reportTestFailure(_ message: String, at location: CallerLocation) {
    if TestFailureCollector.keep(message, fileID: location.fileID, line: Int(location.line)) { return }
    #if canImport(Testing)
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: location.fileID, filePath: "\(location.filePath)", line: Int(location.line),
                    column: Int(location.column)))
            return
        }
    #endif
    #if canImport(XCTest)
        XCTFail(message, file: location.filePath, line: location.line)
    #else
        fputs("\(location): error: \(message)\n", stderr)
    #endif
}

#if canImport(Testing)
    /// Reports a test failure at `sourceLocation` as a Swift Testing issue, or, inside
    /// ``capturingTestFailures(_:)``, to its caller: for test helpers that take Swift Testing's
    /// source location, such as the examples' `TestStore`.
    package func reportTestFailure(_ message: String, at sourceLocation: SourceLocation) {
        if TestFailureCollector.keep(message, fileID: sourceLocation.fileID, line: sourceLocation.line) {
            return
        }
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }
#endif
