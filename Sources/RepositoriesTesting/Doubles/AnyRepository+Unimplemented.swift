import Repositories

extension AnyRepository {
    /// A repository whose every endpoint reports a test failure naming itself and throws
    /// ``UnimplementedEndpointError``: the safe default for a dependency in tests, so no test
    /// silently reaches a live store.
    ///
    /// The error is not a `RepositoryError`, so app code that handles `rejected` never takes
    /// an endpoint the test left unset for a real refusal.
    ///
    /// Override the endpoints a test expects to be called:
    ///
    /// ```swift
    /// var products = AnyRepository<Product, Int>.unimplemented("products")
    /// products.onFetchAll = { [.milk, .bread] }
    /// ```
    ///
    /// - Parameters:
    ///   - name: a name for the dependency, shown in the failure.
    ///   - fileID: the caller's file, where a failure is reported (leave the default).
    ///   - filePath: the caller's file path (leave the default).
    ///   - line: the caller's line (leave the default).
    ///   - column: the caller's column (leave the default).
    public static func unimplemented(
        _ name: String = "AnyRepository<\(Entity.self), \(ID.self)>",
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) -> AnyRepository {
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        @Sendable func fail(_ operation: RepositoryOperation) -> UnimplementedEndpointError {
            let error = UnimplementedEndpointError(dependency: name, operation: operation)
            reportTestFailure(error.description, at: location)
            return error
        }
        return AnyRepository(
            fetch: { _ in throw fail(.fetch) },
            fetchAll: { throw fail(.fetchAll) },
            save: { _ in throw fail(.save) },
            saveContentsOf: { _ in throw fail(.saveContentsOf) },
            delete: { _ in throw fail(.delete) },
            deleteAll: { throw fail(.deleteAll) },
            fetchIDs: { _ in throw fail(.fetchIDs) },
            fetchQuery: { _ in throw fail(.fetchQuery) },
            count: { throw fail(.count) },
            countQuery: { _ in throw fail(.countQuery) },
            deleteIDs: { _ in throw fail(.deleteIDs) })
    }
}
