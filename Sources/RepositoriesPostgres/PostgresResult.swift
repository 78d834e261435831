internal import CPostgres

/// The rows of one statement's result, owned until released (`PQclear`).
///
/// Results of the repository's prepared statements come in binary format: a `bigint` as 8
/// bytes, big-endian; `text` and `bytea` as their bytes.
final class PostgresResult {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    var rowCount: Int { Int(PQntuples(handle)) }

    func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(handle, Int32(row), Int32(column)) == 1
    }

    /// The value's bytes, or `nil` for NULL.
    func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
        guard !isNull(row, column), let value = PQgetvalue(handle, Int32(row), Int32(column)) else {
            return nil
        }
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        return value.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// The value as UTF-8 text (a text-format result, or a binary `text` column), or `nil` for NULL.
    func text(_ row: Int, _ column: Int) -> String? {
        bytes(row, column).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A binary `bigint` (8 bytes, big-endian), or `nil` for NULL or another length.
    func int64(_ row: Int, _ column: Int) -> Int64? {
        guard let bytes = bytes(row, column), bytes.count == 8 else { return nil }
        return bytes.reduce(Int64(0)) { ($0 << 8) | Int64($1) }
    }
}
