/// The cause of a `rejected` error thrown before anything was sent: the value itself can
/// never be sent as it is (an ID that names no single resource of the remote, say), so
/// sending it again cannot help.
///
/// A remote marks such a refusal by giving it as the error's `underlying`:
///
/// ```swift
/// throw RepositoryError.rejected(
///     "The ID \"\" names no single resource", recovery: "Give the entity an ID",
///     underlying: RefusedBeforeSending())
/// ```
///
/// The offline-first sync then rejects that one change, even when the refusal comes while
/// it reads the remote's copy before sending, and the other changes go on. (An
/// `encodingFailed` error says the same of itself: nothing was sent.) Any other `rejected`
/// error met while reading fails the whole sync, since it may refuse every change alike (an
/// expired token).
public struct RefusedBeforeSending: Error, Sendable, CustomStringConvertible {
    /// The marker of a refusal made before anything was sent.
    public init() {}

    /// "refused before anything was sent".
    public var description: String { "refused before anything was sent" }
}
