import Foundation

/// A directory of its own under the temporary directory, removed by ``remove()``.
struct ScratchDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appending(path: "RepositoriesSQLiteTests-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A new, unused file URL in the directory.
    func newFile(_ name: String = UUID().uuidString, extension pathExtension: String = "sqlite") -> URL {
        url.appending(path: "\(name).\(pathExtension)", directoryHint: .notDirectory)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a fresh scratch directory, then removes it whatever happened.
@discardableResult
func withScratchDirectory<Result>(_ body: (ScratchDirectory) async throws -> Result) async throws -> Result {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    return try await body(scratch)
}

/// Removes a database file and its `-wal` and `-shm` companions.
func removeDatabaseFiles(at url: URL) throws {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let path = url.path(percentEncoded: false) + suffix
        if FileManager.default.fileExists(atPath: path) {
            try FileManager.default.removeItem(atPath: path)
        }
    }
}
