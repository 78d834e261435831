import Foundation
import Repositories

/// The error an endpoint of `AnyRepository.unimplemented(_:)` throws when a test calls it
/// without setting it.
///
/// It is a type of its own, not a `RepositoryError`: app code that branches on
/// `RepositoryError` `rejected` (a 4xx, a read-only store) never mistakes a call the test
/// did not expect for a real refusal, and a test can tell the two apart:
///
/// ```swift
/// let products = AnyRepository<Product, Int>.unimplemented("products")
/// await withKnownIssue {   // the call also reports a test failure, at the line above
///     await #expect(throws: UnimplementedEndpointError(dependency: "products", operation: .save)) {
///         try await products.save(.milk)
///     }
/// }
/// ```
///
/// Its description says which endpoint to set:
/// "Unimplemented: products.save(_:) was called. Set products.onSave in this test if the call
/// is expected."
public struct UnimplementedEndpointError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The name the dependency was given, as passed to `unimplemented(_:)`.
    public let dependency: String
    /// The operation that was called.
    public let operation: RepositoryOperation

    /// The error for a call of `operation` on the unimplemented `dependency`.
    public init(dependency: String, operation: RepositoryOperation) {
        self.dependency = dependency
        self.operation = operation
    }

    /// The `AnyRepository` property a test sets to answer the call (`onFetchAll` for
    /// `fetchAll()`).
    public var endpoint: String {
        switch operation {
        case .fetch: "onFetch"
        case .fetchAll: "onFetchAll"
        case .save: "onSave"
        case .saveContentsOf: "onSaveContentsOf"
        case .delete: "onDelete"
        case .deleteAll: "onDeleteAll"
        case .fetchIDs: "onFetchIDs"
        case .fetchQuery: "onFetchQuery"
        case .countQuery: "onCountQuery"
        case .count: "onCount"
        case .deleteIDs: "onDeleteIDs"
        }
    }

    /// What was called and what to set: "Unimplemented: products.fetchAll() was called. Set
    /// products.onFetchAll in this test if the call is expected."
    public var description: String {
        "Unimplemented: \(dependency).\(operation) was called. Set \(dependency).\(endpoint) in this test if the call is expected."
    }
}

extension UnimplementedEndpointError: LocalizedError {
    /// The ``description``, so a view model that shows `localizedDescription` shows which
    /// endpoint the test left unset.
    public var errorDescription: String? { description }
}
