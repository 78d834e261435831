import Foundation

/// The directory an example keeps its local store in: `--data-dir PATH` (kept), or a fresh
/// temporary directory that ``close()`` removes.
public struct ExampleWorkspace: Sendable {
    /// The directory.
    public let directory: URL
    /// Whether ``close()`` removes the directory (true for a temporary one).
    public let isTemporary: Bool

    /// The workspace `options` ask for; creates the directory if needed.
    ///
    /// - Throws: the file system's error, naming the directory, when it cannot be created.
    public init(options: ExampleOptions, example: String) throws {
        if let directory = options.dataDirectory {
            self.directory = directory
            isTemporary = false
        } else {
            directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("\(example)-\(UUID().uuidString)", isDirectory: true)
            isTemporary = true
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The URL of `name` inside the workspace.
    public func file(_ name: String) -> URL {
        directory.appendingPathComponent(name, isDirectory: false)
    }

    /// Removes a temporary workspace; keeps one given with `--data-dir`.
    ///
    /// - Throws: the file system's error when a temporary directory cannot be removed.
    public func close() throws {
        if isTemporary { try FileManager.default.removeItem(at: directory) }
    }
}
