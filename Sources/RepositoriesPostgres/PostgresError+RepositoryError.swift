import Repositories

extension PostgresError {
    /// The `RepositoryError` a caller sees for this failure on `location` (the table), keeping
    /// `self` as its underlying error so the SQLSTATE and the server's message are never lost.
    ///
    /// The reason says in one sentence what went wrong; the server's or libpq's own text is
    /// in the underlying error, which the error's description prints once, as its cause.
    func repositoryError(location: String) -> RepositoryError {
        guard let sqlState else { return connectionFailure(location: location) }
        if let refusal = PostgresSchemaRefusal(self) { return refusal.repositoryError(location: location) }
        switch (sqlState, sqlStateClass ?? "") {
        case (Self.serializationFailure, _), (Self.deadlockDetected, _):
            return RepositoryError(
                .conflict,
                reason: "PostgreSQL aborted the statement to keep concurrent writers apart",
                recovery: "Try the operation again; it had no effect", location: location, underlying: self)
        case (_, "23"):
            return RepositoryError(
                .conflict, reason: "A constraint on the table refused the write",
                recovery: "Check the table's constraints and triggers, which this repository did not create",
                location: location, underlying: self)
        case ("55P03", _):
            return .locked(location: location, underlying: self)
        case (_, "28"):
            return .rejected(
                "PostgreSQL refused the credentials",
                recovery:
                    "Check the user and password in the connection string, and the server's pg_hba.conf",
                underlying: self)
        case ("42501", _), ("25006", _):
            return .rejected(
                "PostgreSQL does not allow this user to do this",
                recovery:
                    "Grant the user SELECT, INSERT, UPDATE and DELETE on the table, or connect to a primary rather than a read-only standby",
                underlying: self)
        case (_, "54"):
            return .rejected(
                "The value is larger than PostgreSQL accepts",
                recovery: "Store large payloads elsewhere and keep a reference in the entity",
                underlying: self)
        case (_, "22"):
            return .rejected(
                "PostgreSQL refused a value",
                recovery: "Check the entity's ID and content; the server's message names what it refused",
                underlying: self)
        case (_, "42"):
            return .rejected(
                "PostgreSQL refused the statement on \(location)",
                recovery:
                    "The table may have been dropped or altered by hand; open the repository again to recreate it",
                underlying: self)
        case ("XX001", _), ("XX002", _):
            return .corrupted(
                "PostgreSQL found damaged data", location: location, underlying: self)
        case (_, "08"), (_, "57"), (_, "53"), (_, "58"):
            return .unavailable(
                "PostgreSQL is not available", location: location, underlying: self)
        default:
            return .unavailable("PostgreSQL failed", location: location, underlying: self)
        }
    }

    /// A failure without an SQLSTATE: libpq could not connect or lost the connection. Its
    /// message is all there is, so refusals of the credentials, the database or TLS are told
    /// apart from an unreachable server by their (English) wording.
    private func connectionFailure(location: String) -> RepositoryError {
        let lowered = message.lowercased()
        let refusals = [
            "authentication failed", "pg_hba.conf", "does not exist", "permission denied", "password",
            "ssl", "certificate", "invalid connection option", "invalid sslmode", "missing \"=\"",
            "invalid uri",
        ]
        if refusals.contains(where: lowered.contains) {
            return .rejected(
                "PostgreSQL refused the connection",
                recovery:
                    "Check the connection string: host, port, database, user, password and sslmode",
                underlying: self)
        }
        return .unavailable(
            "PostgreSQL cannot be reached", location: location, underlying: self)
    }
}
