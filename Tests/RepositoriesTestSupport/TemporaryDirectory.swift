import Foundation

/// A directory of its own for one test, removed when the test is done with it.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates a new, empty directory under the system's temporary directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appending(
            path: "repositories-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)  // cleanup of a temporary directory
    }

    /// A path inside the directory for a new file.
    public func file(_ name: String = "\(UUID().uuidString).store") -> URL {
        url.appending(path: name)
    }
}
