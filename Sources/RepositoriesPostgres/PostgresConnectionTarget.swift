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
