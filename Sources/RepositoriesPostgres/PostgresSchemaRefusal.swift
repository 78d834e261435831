import Repositories

/// A write refused because a newer version of the entity wrote the row it would replace,
/// read back from the error the statement raised (``PostgresTable/schemaVersionOnReplace(_:)``):
/// the text cast to `integer` was the ``marker``, the row's `schema_version`, the writer's
/// version and the row's ID.
struct PostgresSchemaRefusal: Sendable {
    /// What starts the refused cast's text.
    static let marker = "swift-repositories: newer row "

    /// The version of the entity that wrote the row.
    var rowVersion: Int
    /// The version the refused write was made by.
    var writerVersion: Int
    /// The row's ID, as text.
    var id: String

    /// The refusal `error` reports, or `nil` when it reports something else.
    init?(_ error: PostgresError) {
        guard error.sqlState == "22P02", let start = error.message.range(of: Self.marker) else { return nil }
        // The message quotes the text: `invalid input syntax for type integer: "<marker>3 2 a1"`.
        var rest = error.message[start.upperBound...]
        if let quote = rest.lastIndex(of: "\"") { rest = rest[..<quote] }
        let parts = rest.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let row = Int(parts[0]), let writer = Int(parts[1]) else { return nil }
        (rowVersion, writerVersion, id) = (row, writer, String(parts[2]))
    }

    /// The error the caller sees: `writtenByNewerVersion`, naming the row's ID.
    func repositoryError(location: String) -> RepositoryError {
        var error = RepositoryError.writtenByNewerVersion(
            rowVersion, knownVersion: writerVersion, location: location)
        error.id = id
        return error
    }
}
