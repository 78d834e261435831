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

/// One contender: its name in the table, and how it opens a store at a path.
struct Contender: Sendable {
    let name: String
    /// Whether this contender is GRDB, the one the others are compared with.
    let isReference: Bool
    let open: @Sendable (URL) async throws -> any PeerStore

    static let file = Contender(name: "FileRepository", isReference: false) {
        try await FileRepository<PeerEntity>(fileURL: $0)
    }
    static let sqlite = Contender(name: "SQLiteRepository", isReference: false) {
        try await SQLiteRepository<PeerEntity>(fileURL: $0)
    }
    static let grdb = Contender(name: "GRDB", isReference: true) { try await GRDBStore(url: $0) }
}
