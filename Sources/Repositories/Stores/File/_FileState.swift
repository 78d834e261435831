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
    /// Set when the store can no longer vouch for what it writes (a failed fsync, the file
    /// deleted or replaced under it): every write throws it until the store is reopened;
    /// reads go on answering from the index, which holds every acknowledged write.
    var writeRefusal: RepositoryError?
    /// Set when a failed write may have left bytes past `fileLength` that could not be cut
    /// off; the next write cuts them first, and throws if it still cannot.
    var tailNeedsCut = false
    /// Why the last automatic compaction failed, if it did; it is tried again later.
    var compactionError: RepositoryError?

    init(index: _InMemoryStorage<Entity>, fileLength: Int, totalRecords: Int) {
        self.index = index
        self.fileLength = fileLength
        self.totalRecords = totalRecords
    }

    var deadRecords: Int { totalRecords - index.count }

    /// Throws `closed` once the store is closed; what reads check.
    @inlinable
    func checkUsable(_ fileURL: URL) throws {
        if isClosed { throw RepositoryError.closed(location: fileURL.path) }
    }

    /// Throws `closed`, or why writes are refused; what writes check.
    func checkWritable(_ fileURL: URL) throws {
        try checkUsable(fileURL)
        if let writeRefusal { throw writeRefusal }
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
