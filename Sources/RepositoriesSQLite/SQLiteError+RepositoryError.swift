import Repositories

extension SQLiteError {
    /// The `RepositoryError` a caller sees for this failure at `location`, keeping `self` as
    /// its underlying error so SQLite's codes and message are never lost.
    func repositoryError(location: String) -> RepositoryError {
        switch code {
        case SQLiteError.busy, SQLiteError.locked:
            return .locked(location: location, underlying: self)
        case SQLiteError.corrupt:
            return .corrupted("The SQLite database is damaged", location: location, underlying: self)
        case SQLiteError.notADatabase:
            return .corrupted(
                "The file is not an SQLite database (or its header is damaged)", location: location,
                underlying: self)
        case SQLiteError.constraint:
            return .conflict("SQLite refused the write: \(message)", underlying: self)
        case SQLiteError.readOnly, SQLiteError.permission:
            return .rejected(
                "The database cannot be written: \(message)",
                recovery: "Check the permissions of the file and its directory", underlying: self)
        case SQLiteError.tooBig:
            return .rejected(
                "The value is larger than SQLite accepts: \(message)",
                recovery: "Store large payloads elsewhere and keep a reference in the entity",
                underlying: self)
        case SQLiteError.full:
            return .unavailable(
                "The disk is full, so SQLite could not write", location: location, underlying: self)
        case SQLiteError.cannotOpen:
            return .unavailable(
                "SQLite could not open the database file: \(message)", location: location, underlying: self)
        default:
            return .unavailable("SQLite failed: \(message)", location: location, underlying: self)
        }
    }
}
