import Foundation
import Repositories

/// Where and how to connect: the caller's connection string, expanded by libpq, with this
/// package's defaults around it.
///
/// The caller's string (a `key=value` conninfo or a `postgresql://` URI; TLS settings such as
/// `sslmode`, `sslrootcert` and `sslcert` included) is passed to libpq untouched, as the
/// `dbname` that libpq expands, so every libpq parameter and environment variable
/// (`PGHOST`, `PGPASSWORD`, `PGSSLMODE`, …) works as documented for libpq. The defaults placed
/// before it (a connect timeout, TCP keepalives, an application name) yield to what the
/// string says; `client_encoding=UTF8`, placed after it, does not, since the repository sends
/// its keys as UTF-8.
struct PostgresConnectionTarget: Sendable {
    let keywords: [String]
    let values: [String]

    init(connectionString: String, connectTimeoutSeconds: Int, applicationName: String = "swift-repositories")
    {
        let pairs: [(String, String)] = [
            ("connect_timeout", String(connectTimeoutSeconds)),
            ("fallback_application_name", applicationName),
            ("keepalives", "1"),
            ("keepalives_idle", "10"),
            ("keepalives_interval", "5"),
            ("keepalives_count", "3"),
            ("dbname", connectionString),
            ("client_encoding", "UTF8"),
        ]
        keywords = pairs.map(\.0)
        values = pairs.map(\.1)
    }

    /// Refuses a connection string libpq would misread, before connecting: libpq takes any
    /// string that is neither a URI nor `key=value` pairs as the name of a database, so a typo
    /// in the scheme (`postgressql://…`) or an empty string would surface as a database that
    /// does not exist, or a server that cannot be reached, which a retry would try again.
    ///
    /// - Throws: `RepositoryError` `rejected`, saying what libpq takes; the string is not
    ///   repeated, since it may hold a password.
    static func validate(_ connectionString: String) throws {
        let text = connectionString.trimmingCharacters(in: .whitespacesAndNewlines)
        let example =
            "Pass a URI such as postgresql://app@db.internal:5432/app or key=value pairs such as "
            + "host=db.internal dbname=app user=app"
        guard !text.isEmpty else {
            throw RepositoryError.rejected("The PostgreSQL connection string is empty", recovery: example)
        }
        if let scheme = text.range(of: "://").map({ String(text[..<$0.lowerBound]) }) {
            guard scheme == "postgresql" || scheme == "postgres" else {
                throw RepositoryError.rejected(
                    "The PostgreSQL connection string's scheme is \"\(scheme.prefix(20))\", which libpq does not read",
                    recovery: "Start the URI with postgresql:// or postgres://")
            }
            return
        }
        guard text.range(of: #"^[A-Za-z_][A-Za-z0-9_]*\s*="#, options: .regularExpression) != nil else {
            throw RepositoryError.rejected(
                "The PostgreSQL connection string is neither a postgresql:// URI nor key=value pairs; libpq would take all of it as a database name",
                recovery: example + " (dbname=NAME for a database name alone)")
        }
    }

    /// A conninfo string of `parameters` (`host`, `port`, `dbname`, `user`, `password`,
    /// `sslmode`, …), each value quoted as libpq's conninfo syntax asks.
    static func conninfo(_ parameters: [String: String]) -> String {
        parameters.sorted { $0.key < $1.key }.map { key, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "'", with: "\\'")
            return "\(key)='\(escaped)'"
        }.joined(separator: " ")
    }
}
