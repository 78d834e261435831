import Repositories
import RepositoriesSQLite

/// The article's `DataRepository`, in a few lines of this package: the API first, its
/// answers mirrored into the SQLite database; when the API fails, the database answers;
/// when the database has nothing either, the API's error is thrown, so the view model can
/// show it (the article's version would hand back an empty list instead).
enum DataRepository {
    /// The remote-first stack over `api`, with `database` as its local store.
    ///
    /// - Parameter onTierFailure: told when the database fails and the stack works around
    ///   it (an answer of the API that could not be mirrored is still returned).
    static func make<API: Repository<Meteorite, Int>>(
        api: API, database: SQLiteRepository<Meteorite>,
        onTierFailure: @escaping @Sendable (TierFailure) -> Void
    ) -> RemoteFirstRepository<API, SQLiteRepository<Meteorite>> {
        api.fallback(to: database, onTierFailure: onTierFailure)
    }
}
