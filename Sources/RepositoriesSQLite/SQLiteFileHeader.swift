import Repositories

/// The fields of an SQLite database file's 100-byte header that say how long the file must
/// be, read from the file's bytes rather than through SQLite.
///
/// SQLite checks the header's page count against the file's length only in whole pages,
/// rounding a partial last page up: a file cut short inside its last page opens, and the
/// rows and index entries that lay in the cut bytes read as zeros (some vanish without an
/// error). Comparing the header with the exact length catches every cut.
///
/// The layout (integers big-endian), from SQLite's file format:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 16 | `"SQLite format 3\0"` |
/// | 16 | 2 | page size in bytes; 1 means 65,536 |
/// | 24 | 4 | file change counter |
/// | 28 | 4 | database size in pages |
/// | 92 | 4 | the change counter the size is valid for |
struct SQLiteFileHeader {
    static let magic = Array("SQLite format 3\u{0}".utf8)

    var pageSize: Int
    var pageCount: Int
    /// Whether SQLite trusts ``pageCount``: it was written with the change counter it holds
    /// (tools older than SQLite 3.7.0 left it stale; SQLite then goes by the file's length).
    var pageCountIsValid: Bool

    /// Reads the header of `bytes`, or `nil` when they are not an SQLite header that gives a
    /// usable page size (SQLite reports those files itself, as not databases).
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 100, Array(bytes[0..<16]) == Self.magic else { return nil }
        func integer(at offset: Int, size: Int) -> Int {
            bytes[offset..<(offset + size)].reduce(0) { $0 << 8 | Int($1) }
        }
        let size = integer(at: 16, size: 2)
        pageSize = size == 1 ? 65_536 : size
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else { return nil }
        pageCount = integer(at: 28, size: 4)
        pageCountIsValid = pageCount > 0 && integer(at: 24, size: 4) == integer(at: 92, size: 4)
    }

    /// Throws unless the database file `connection` has open is at least as long as its
    /// header says.
    ///
    /// Call it inside a read transaction on the file: while a reader reads the database
    /// file itself (the write-ahead log holds no frames), no checkpoint can write to it, so
    /// the header and the length agree unless the file is damaged. When the log holds
    /// frames, the page count lives there, and the check is left to SQLite.
    ///
    /// The length and the header are read through the connection's own descriptors (see
    /// ``SQLiteConnection/databaseFileLength()``): a descriptor of our own, once closed, would
    /// drop the process's locks on the file.
    ///
    /// - Throws: `RepositoryError` `corrupted`, at the offset where the file ends;
    ///   `SQLiteError` when SQLite cannot read the file.
    static func checkLength(of connection: SQLiteConnection, location: String) throws {
        // No log, or an empty one: SQLite reads every page from the database file.
        guard (try connection.logFileLength() ?? 0) == 0 else { return }
        let length = try connection.databaseFileLength()
        let bytes = try connection.databaseFilePrefix(count: 100)
        guard let header = SQLiteFileHeader(bytes), header.pageCountIsValid else { return }
        let expected = Int64(header.pageCount) * Int64(header.pageSize)
        guard length < expected else { return }
        throw RepositoryError.corrupted(
            "The database file is \(length) bytes long, but its header says it holds \(header.pageCount) pages of \(header.pageSize) bytes (\(expected) bytes): it was cut short",
            location: location, offset: Int(length))
    }
}
