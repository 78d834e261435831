/// A statement the repository prepares once per connection and runs by name.
///
/// Its SQL is built only when needed (to prepare the statement on a connection, or to name it
/// in an error): a save asks its table for the statement every time, and building the text
/// of a write statement cost a save about a tenth of its client time.
struct PostgresStatement: Sendable {
    /// The prepared statement's name on the connection.
    let name: String
    /// The OIDs of its parameters, in order.
    let parameterTypes: [UInt32]
    private let makeSQL: @Sendable () -> String

    init(name: String, sql: @autoclosure @escaping @Sendable () -> String, parameterTypes: [UInt32]) {
        self.name = name
        self.makeSQL = sql
        self.parameterTypes = parameterTypes
    }

    /// The statement's text.
    var sql: String { makeSQL() }
}
