import Foundation

/// `error.localizedDescription`, which the articles' view models show, reads as the
/// error's ``RepositoryError/description`` on every platform: the sentence that says what
/// failed, where, and what to do (on Linux a plain `Error` would read "The operation could
/// not be completed").
extension RepositoryError: LocalizedError {
    /// The error's ``RepositoryError/description``.
    public var errorDescription: String? { description }
    /// Why the operation failed, without the context and the recovery.
    public var failureReason: String? { reason }
    /// What to do about it, when the error knows.
    public var recoverySuggestion: String? { recovery }
}
