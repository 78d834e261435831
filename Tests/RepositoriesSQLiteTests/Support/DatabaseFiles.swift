import Foundation

/// Removes a database file and its `-wal`, `-shm` and `-journal` companions.
func removeDatabaseFiles(at url: URL) throws {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let path = url.path(percentEncoded: false) + suffix
        if FileManager.default.fileExists(atPath: path) {
            try FileManager.default.removeItem(atPath: path)
        }
    }
}
