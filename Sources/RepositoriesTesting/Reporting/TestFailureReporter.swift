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

/// Reports a test failure at `location`: as a Swift Testing issue inside a Swift Testing
/// test, as an XCTest failure otherwise, and on standard error when neither framework runs.
package func reportTestFailure(_ message: String, at location: CallerLocation) {
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
