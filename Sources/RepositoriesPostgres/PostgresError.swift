/// A failure reported by PostgreSQL or libpq, kept as it was: the SQLSTATE, the server's
/// message, its detail and hint, and the SQL that failed.
///
/// ``PostgresRepository`` never throws it directly: it throws a `RepositoryError` whose
/// `underlying` error is the `PostgresError`, so a caller who needs the server's own
/// diagnosis can read it:
///
/// ```swift
/// catch let error as RepositoryError {
///     if let postgres = error.underlying as? PostgresError, postgres.sqlState == "40001" { … }
/// }
/// ```
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The five-character SQLSTATE the server sent, such as `23505` (unique violation), or
    /// `nil` when the failure happened in libpq (a refused connection, a lost socket).
    public var sqlState: String?
    /// The server's (or libpq's) primary message, such as
    /// `password authentication failed for user "app"`.
    public var message: String
    /// The server's detail line, when it sent one.
    public var detail: String?
    /// The server's hint, when it sent one.
    public var hint: String?
    /// The statement that failed, when the failure came from one.
    public var sql: String?
    /// Whether the connection was unusable after the failure (the server went away, the
    /// backend was terminated), so the repository dropped it and will open a new one.
    public var connectionLost: Bool
    /// Whether the failure was in opening a connection, so that trying again at once would
    /// meet the same refusal.
    var failedToConnect = false

    /// Creates an error from its parts.
    public init(
        sqlState: String?, message: String, detail: String? = nil, hint: String? = nil, sql: String? = nil,
        connectionLost: Bool = false
    ) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
        self.sql = sql
        self.connectionLost = connectionLost
    }

    /// The SQLSTATE's class: its first two characters, such as `23` (integrity constraint
    /// violation), or `nil` when there is no SQLSTATE.
    public var sqlStateClass: String? { sqlState.map { String($0.prefix(2)) } }

    /// The SQLSTATE, the message, the detail, the hint and the SQL, as one line.
    public var description: String {
        var text = "PostgreSQL error"
        if let sqlState { text += " \(sqlState)" }
        text += ": \(message)"
        if let detail { text += " — \(detail)" }
        if let hint { text += " (hint: \(hint))" }
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}

extension PostgresError {
    /// `23505`: a unique constraint refused a row.
    public static let uniqueViolation = "23505"
    /// `40001`: a serializable transaction could not be serialized with another.
    public static let serializationFailure = "40001"
    /// `40P01`: the server broke a deadlock by failing this transaction.
    public static let deadlockDetected = "40P01"
    /// `57014`: the statement was cancelled (by a cancel request or `statement_timeout`).
    public static let queryCanceled = "57014"
    /// `57P01`: the backend was terminated (`pg_terminate_backend`, a fast shutdown).
    public static let adminShutdown = "57P01"
    /// `28P01`: the password was wrong.
    public static let invalidPassword = "28P01"
}
