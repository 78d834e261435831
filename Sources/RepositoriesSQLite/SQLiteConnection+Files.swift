internal import CSQLite

/// The main database file and its log, read through the descriptors SQLite holds open.
///
/// Never open a descriptor of a database file, its `-wal` or its `-shm` beside SQLite: under
/// POSIX, closing *any* descriptor of a file drops every `fcntl` lock the process holds on
/// it, and those locks are how SQLite knows who else uses the file. A process that lost them
/// looks gone to the others: one of them closing then believes it is the last connection,
/// checkpoints, and deletes the `-wal` this process is still appending to, taking every save
/// since the last checkpoint with it ("How To Corrupt An SQLite Database File", section 2.2).
/// A `stat` of a path opens nothing and is harmless.
extension SQLiteConnection {
    /// The length in bytes of the main database file.
    ///
    /// - Throws: `SQLiteError` when SQLite cannot say (the file is not open).
    func databaseFileLength() throws -> Int64 {
        let length = try fileLength(SQLITE_FCNTL_FILE_POINTER)
        guard length >= 0 else {
            throw SQLiteError(extendedCode: SQLiteError.cannotOpen, message: "the database file is not open")
        }
        return length
    }

    /// The length in bytes of the write-ahead log (or, outside WAL mode, the rollback journal)
    /// as this connection has it open, or `nil` when it has none open.
    func logFileLength() throws -> Int64? {
        let length = try fileLength(SQLITE_FCNTL_JOURNAL_POINTER)
        return length >= 0 ? length : nil
    }

    /// The first `count` bytes of the main database file, or all of them when it is shorter.
    func databaseFilePrefix(count: Int) throws -> [UInt8] {
        let length = try databaseFileLength()
        let available = Int(min(Int64(count), length))
        guard available > 0 else { return [] }
        let handle = try requireHandle()
        var bytes = [UInt8](repeating: 0, count: available)
        let result = bytes.withUnsafeMutableBytes { buffer in
            csqlite_read_database_file(handle, buffer.baseAddress, Int32(available), 0)
        }
        guard result == SQLITE_OK else {
            throw SQLiteError(
                extendedCode: result,
                message: "the database file's first \(available) bytes could not be read")
        }
        return bytes
    }

    private func fileLength(_ operation: Int32) throws -> Int64 {
        let handle = try requireHandle()
        var length: sqlite3_int64 = -1
        let result = csqlite_file_length(handle, operation, &length)
        guard result == SQLITE_OK else {
            throw SQLiteError(extendedCode: result, message: "SQLite could not tell a file's length")
        }
        return length
    }
}
