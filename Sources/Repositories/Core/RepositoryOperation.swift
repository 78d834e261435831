/// The operations of ``Repository``, named, for tools that record, fail or time them.
public enum RepositoryOperation: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ``Repository/fetch(id:)``
    case fetch
    /// ``Repository/fetchAll()``
    case fetchAll
    /// ``Repository/save(_:)``
    case save
    /// ``Repository/save(contentsOf:)``
    case saveContentsOf
    /// ``Repository/delete(id:)``
    case delete
    /// ``Repository/deleteAll()``
    case deleteAll
    /// ``Repository/fetch(ids:)``
    case fetchIDs
    /// ``Repository/fetch(_:)``
    case fetchQuery
    /// ``Repository/count()``
    case count
    /// ``Repository/count(_:)``
    case countQuery
    /// ``Repository/delete(ids:)``
    case deleteIDs

    /// The operations that change stored data.
    public static let writes: Set<RepositoryOperation> = [
        .save, .saveContentsOf, .delete, .deleteAll, .deleteIDs,
    ]
    /// The operations that only read.
    public static let reads: Set<RepositoryOperation> = [
        .fetch, .fetchAll, .fetchIDs, .fetchQuery, .count, .countQuery,
    ]

    /// Whether the operation changes stored data.
    public var isWrite: Bool { Self.writes.contains(self) }

    /// The operation's Swift signature, such as `save(contentsOf:)`.
    public var description: String {
        switch self {
        case .fetch: "fetch(id:)"
        case .fetchAll: "fetchAll()"
        case .save: "save(_:)"
        case .saveContentsOf: "save(contentsOf:)"
        case .delete: "delete(id:)"
        case .deleteAll: "deleteAll()"
        case .fetchIDs: "fetch(ids:)"
        case .fetchQuery: "fetch(_:)"
        case .count: "count()"
        case .countQuery: "count(_:)"
        case .deleteIDs: "delete(ids:)"
        }
    }
}
