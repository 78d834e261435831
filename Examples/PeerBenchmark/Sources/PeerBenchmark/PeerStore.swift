import Foundation
import Repositories
import RepositoriesSQLite

/// What every workload asks of a contender: the operations of `Repository` it measures,
/// and closing.
protocol PeerStore: Sendable {
    func fetchAll() async throws -> [PeerEntity]
    func fetch(id: Int) async throws -> PeerEntity?
    func save(_ entity: PeerEntity) async throws
    func save(contentsOf entities: [PeerEntity]) async throws
    func close() async throws
}

// Our stores have these operations as they are, at their defaults: FileRepository with
// `.everyWrite` durability, SQLiteRepository in WAL with `synchronous=FULL`.
extension FileRepository: PeerStore where Entity == PeerEntity {}
extension SQLiteRepository: PeerStore where Entity == PeerEntity {}

/// One contender: its name in the table, and how it opens a store at a path, for the
/// workloads of `PeerEntity` and for the query workload's `RankedEntity`.
struct Contender: Sendable {
    let name: String
    /// Whether this contender is GRDB, the one the others are compared with.
    let isReference: Bool
    let open: @Sendable (URL) async throws -> any PeerStore
    let openRanked: @Sendable (URL) async throws -> any RankedStore

    static let file = Contender(
        name: "FileRepository", isReference: false,
        open: { try await FileRepository<PeerEntity>(fileURL: $0) },
        openRanked: { try await FileRepository<RankedEntity>(fileURL: $0) })
    static let sqlite = Contender(
        name: "SQLiteRepository", isReference: false,
        open: { try await SQLiteRepository<PeerEntity>(fileURL: $0) },
        openRanked: { try await SQLiteRepository<RankedEntity>(fileURL: $0) })
    static let grdb = Contender(
        name: "GRDB", isReference: true, open: { try await GRDBStore(url: $0) },
        openRanked: { try await GRDBRankedStore(url: $0) })
}
