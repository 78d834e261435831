import Foundation
import GRDB
import Repositories
import RepositoriesSQLite

/// The entity of the query workload: a list screen's row with a score, which every contender
/// can filter and sort by where the data lives (ours: a declared field; GRDB: an indexed
/// column). Scores are distinct (a multiplicative permutation of the IDs), so "the 20 highest
/// below a threshold" has one answer, in one order, in every store.
///
/// An entity of its own, so the index this workload needs costs nothing in the others.
struct RankedEntity: Codable, Identifiable, Sendable, Equatable, QueryableEntity {
    var id: Int
    var name: String
    var score: Double
    var createdAt: Date

    static let queryableFields: [QueryableField<RankedEntity>] = [
        QueryableField(\.score, name: "score")
    ]

    /// The entity with `id` in a store of `count` (7,919 is prime, so for any `count` it does
    /// not divide, each ID gets its own score).
    static func make(_ id: Int, of count: Int) -> RankedEntity {
        RankedEntity(
            id: id, name: "item \(id)", score: Double((id &* 7_919) % count) / 4,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(id)))
    }

    /// The field query every one of ours runs.
    static func highest(_ limit: Int, below threshold: Double) -> Query<RankedEntity> {
        Query<RankedEntity>().where(\.score < threshold).sorted(by: \.score, .descending).limit(limit)
    }
}

/// What the query workload asks of a contender.
protocol RankedStore: Sendable {
    func save(contentsOf entities: [RankedEntity]) async throws
    /// The IDs of the `limit` highest scores below `threshold`, highest first.
    func highest(_ limit: Int, below threshold: Double) async throws -> [Int]
    func close() async throws
}

extension FileRepository: RankedStore where Entity == RankedEntity {
    func highest(_ limit: Int, below threshold: Double) async throws -> [Int] {
        try await fetch(RankedEntity.highest(limit, below: threshold)).map(\.id)
    }
}

extension SQLiteRepository: RankedStore where Entity == RankedEntity {
    func highest(_ limit: Int, below threshold: Double) async throws -> [Int] {
        try await fetch(RankedEntity.highest(limit, below: threshold)).map(\.id)
    }
}

extension RankedEntity: FetchableRecord, PersistableRecord {}

/// GRDB with what its documentation recommends for this screen: an index on the column the
/// query filters and sorts by, and the query in its query interface.
final class GRDBRankedStore: RankedStore {
    let pool: DatabasePool

    init(url: URL) async throws {
        pool = try DatabasePool(path: url.path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("rankedEntity") { db in
            try db.create(table: RankedEntity.databaseTableName) { table in
                table.primaryKey("id", .integer)
                table.column("name", .text).notNull()
                table.column("score", .double).notNull().indexed()
                table.column("createdAt", .datetime).notNull()
            }
        }
        try migrator.migrate(pool)
    }

    func save(contentsOf entities: [RankedEntity]) async throws {
        try await pool.write { db in
            for entity in entities { try entity.insert(db) }
        }
    }

    func highest(_ limit: Int, below threshold: Double) async throws -> [Int] {
        try await pool.read { db in
            try RankedEntity.filter(Column("score") < threshold).order(Column("score").desc).limit(limit)
                .fetchAll(db).map(\.id)
        }
    }

    func close() async throws {
        try pool.close()
    }
}
