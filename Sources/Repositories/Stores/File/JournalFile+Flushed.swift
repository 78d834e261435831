import Foundation

extension JournalFile {
    /// Writes `data` to `url` (replacing what is there) and flushes the file to stable
    /// storage before returning; the caller flushes the directory entry when it needs it.
    static func writeFlushed(_ data: Data, to url: URL) throws {
        try data.write(to: url)
        let handle = try FileHandle(forUpdating: url)
        do {
            try handle.synchronize()
        } catch {
            try? handle.close()  // the flush's error is the one to report
            throw error
        }
        try handle.close()
    }
}
