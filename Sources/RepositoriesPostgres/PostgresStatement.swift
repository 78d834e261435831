/// A statement the repository prepares once per connection and runs by name.
struct PostgresStatement: Sendable {
    /// The prepared statement's name on the connection.
    let name: String
    let sql: String
    /// The OIDs of its parameters, in order.
    let parameterTypes: [UInt32]
}
