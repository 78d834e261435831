import Foundation

/// What a ``FileRepository`` holds in memory: the index every read is served from, the
/// writes waiting for the writer queue, and the bookkeeping for compaction.
@usableFromInline
struct _FileState<Entity: Identifiable & Sendable> where Entity.ID: Sendable {
    /// A change, applied to the index once its record is on disk.
    enum Mutation {
        case save(Entity)
        case saveBatch([Entity])
        case delete([Entity.ID])
        case clear
    }

    /// A record waiting to be written, and the caller waiting for it.
    struct PendingWrite {
        var bytes: [UInt8]
        var mutation: Mutation
        var continuation: CheckedContinuation<Void, any Error>
    }

    @usableFromInline var index: _InMemoryStorage<Entity>
    /// The file's length: where the next record goes.
    var fileLength: Int
    /// Entity-level records in the file (a batch of *n* counts *n*); those beyond the live
    /// entities are dead weight that compaction removes.
    var totalRecords: Int
    var pending: [PendingWrite] = []
    var draining = false
    @usableFromInline var isClosed = false
    /// Whether written data may not be on disk yet (relaxed durability).
    var unsynchronized = false
    /// Set when the file can no longer be trusted (a failed fsync); every call throws it.
    @usableFromInline var failure: RepositoryError?
    /// Why the last automatic compaction failed, if it did; it is tried again later.
    var compactionError: RepositoryError?

    init(index: _InMemoryStorage<Entity>, fileLength: Int, totalRecords: Int) {
        self.index = index
        self.fileLength = fileLength
        self.totalRecords = totalRecords
    }

    var deadRecords: Int { totalRecords - index.count }

    @inlinable
    func checkUsable(_ fileURL: URL) throws {
        if isClosed { throw RepositoryError.closed(location: fileURL.path) }
        if let failure { throw failure }
    }

    mutating func apply(_ mutation: Mutation) {
        switch mutation {
        case .save(let entity):
            index.upsert(entity)
            totalRecords += 1
        case .saveBatch(let entities):
            for entity in entities { index.upsert(entity) }
            totalRecords += entities.count
        case .delete(let ids):
            for id in ids { index.remove(id) }
            totalRecords += ids.count
        case .clear:
            index.removeAll()
            totalRecords += 1
        }
    }
}
