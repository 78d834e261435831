import Dispatch
import Foundation
import Synchronization

/// A durable store in one file: an append-only journal with a checksum on every record,
/// group commit, compaction by atomic rewrite, and an exclusive lock.
///
/// ```swift
/// let todos = try await FileRepository<Todo>(fileURL: documents.appending(path: "todos.store"))
/// try await todos.save(todo)        // on disk when this returns
/// try await todos.close()
/// ```
///
/// ## Guarantees
///
/// - **Nothing acknowledged is lost.** With the default ``Durability/everyWrite``, `save`,
///   `delete` and their batch forms return only after the data is on disk (fsync), so it
///   survives `kill -9`, an OS crash and power loss. Writers that arrive together share one
///   fsync (group commit).
/// - **All or nothing.** A batch is one record with one checksum: after a crash it is there
///   whole or not at all. An entity that cannot be encoded throws `encodingFailed` and
///   nothing of its call is written. A write that fails is cut back off the file.
/// - **Damage is reported, never papered over.** On open, a torn final record (a crash in
///   mid-write, never acknowledged) is dropped and the file truncated to the last good
///   record. Any other damage throws `corrupted` naming the file and byte offset, and leaves
///   the file byte-for-byte as it was. A record that no longer decodes throws
///   `decodingFailed` naming it, unless ``UndecodableRecords/setAside`` was chosen. No mode
///   answers with an empty list for a store that holds data it could not read.
/// - **One user at a time.** The file is locked exclusively: a second opener, in this
///   process or another, gets `locked` at once (or after ``Options/lockWait``).
/// - **One record is at most 4 GiB.** An entity whose JSON is larger (or a batch, or a
///   delete, larger in all) throws `rejected` naming the entity and the limit, and nothing
///   of its call is written.
///
/// ## When the disk or the file changes under the store
///
/// Reads answer from the in-memory index, which holds every acknowledged write, so they
/// keep working through every failure below; only ``close()`` ends them.
///
/// - **A write the file system refuses** (a full disk, an immutable file, a read-only file
///   system) throws for that call only. What it may have left is cut back off the file, so
///   the journal ends at the last acknowledged record and the next write simply tries
///   again. If cutting fails too and bytes were left, the next write cuts them first and
///   throws while it cannot; nothing is appended after them.
/// - **A failed flush** (fsync) leaves the file's contents unknown: every later write
///   throws `unavailable` until the store is closed and opened again (opening checks every
///   record).
/// - **The file deleted, moved away or replaced** (another file renamed over it) while the
///   store is open: before it tells writers yes, and before compaction renames, the store
///   compares its open file's device and inode with what the path names. When they differ
///   the write throws `rejected` naming the path, and every later write and compaction
///   throws the same until the store is reopened; the file now at the path is never
///   touched. Read what you need from the store, close it, and save it into the store you
///   mean to use.
///
/// ## Cost
///
/// Reads are served from an in-memory index and cost what ``InMemoryRepository``'s do.
/// A save appends one record: O(1) amortized however large the store. A batch of any size
/// is one write and one fsync. Opening reads the file once: linear in its size. When
/// records of replaced and deleted entities outnumber live ones, the store rewrites a
/// snapshot to a temporary file, flushes it, renames it over the store and flushes the
/// directory, so a crash at any point of compaction loses nothing.
///
/// Blocking file calls run on the store's own serial queue, never on Swift's cooperative
/// thread pool. A write whose task is cancelled before it is queued throws
/// `CancellationError`; once queued it completes, so the answer is always the truth.
///
/// The byte layout is in Docs/Durability.md.
public final class FileRepository<Entity: Codable & Identifiable & Sendable>: Repository, Sendable
where Entity.ID: Codable & Sendable {
    /// The type that identifies an entity.
    public typealias ID = Entity.ID

    /// The store's file.
    public let fileURL: URL
    /// How the store writes, locks and reads.
    public let options: Options
    /// How many undecodable records opening set aside (with ``UndecodableRecords/setAside``).
    public let setAsideRecordCount: Int
    /// The entity's versions and the upgrades from the older ones.
    public let migrations: Migrations<Entity>
    /// How many records opening found written by an older version of the entity and
    /// upgraded (each entity of a batch counts); 0 when nothing needed it.
    public let upgradedRecordCount: Int

    /// What every record this store appends carries in its stamp: 0 in a format 1 file
    /// (entity version 1), else the current entity version.
    let recordStamp: UInt32
    /// The file format the store writes, compaction included.
    let format: UInt16
    /// The codec the file's entities are encoded with, recorded in its header: the one
    /// ``Options/codec`` named when the file was created (JSON for files written before
    /// codecs existed).
    public let codec: EntityCodec

    // Reads are inlinable, like InMemoryRepository's, so they are specialized for the
    // caller's entity: unspecialized, the lookup ran through generic metadata and cost
    // about six times a raw dictionary's (figure 6 of the benchmark).
    @usableFromInline let state: Mutex<_FileState<Entity>>
    let writer: DispatchQueue
    let journal: JournalBox
    /// Test-only conditions: a lower record size limit, planned system-call failures.
    let hooks = _FileTestHooks()

    /// Opens the store at `fileURL`, creating it when no file is there, and upgrades what
    /// older versions of the entity wrote.
    ///
    /// Every record carries the version of the entity that wrote it. Records of an older
    /// version are decoded as that version's shape and run through `migrations`; when any
    /// were, the store is rewritten at the current version before this returns: to a
    /// temporary file, flushed, then renamed over the store, so a crash leaves the old file
    /// or the new one, never a mix, and the next open finishes the job
    /// (see Docs/Migrations.md).
    ///
    /// ```swift
    /// let todos = try await FileRepository<Todo>(fileURL: url, migrations: migrations)
    /// todos.upgradedRecordCount  // how many records were upgraded on this open
    /// ```
    ///
    /// - Parameters:
    ///   - fileURL: the store's file.
    ///   - options: how the store writes, locks and reads.
    ///   - migrations: the entity's current version and the upgrades from older ones; by
    ///     default none (version 1).
    /// - Throws: `locked` when another process or instance holds the store (at once, or
    ///   after ``Options/lockWait``; the error's recovery names that option); `corrupted`
    ///   naming the offset when the file is damaged or is not a store (the file is left as
    ///   it was); `writtenByNewerVersion` when a record was written by a newer version of
    ///   the entity than `migrations` knows (the file is left as it was); `decodingFailed`
    ///   naming the record and its version when one no longer decodes, even through the
    ///   migrations (the file is left as it was), unless ``UndecodableRecords/setAside``
    ///   was chosen; `rejected` for a directory or a path that cannot be created, or for a
    ///   declaration of queryable fields with a bad or repeated name
    ///   (``QueryableEntity/validateQueryableFields()``).
    @inlinable
    public convenience init(
        fileURL: URL, options: Options = Options(), migrations: Migrations<Entity> = Migrations()
    ) async throws {
        // This closure is compiled in the app's module, specialized for its entity: building
        // the index of a large store through the library's unspecialized generic code cost
        // as much as decoding it.
        try await self.init(
            fileURL: fileURL, options: options, migrations: migrations,
            insertAll: { index, entities in index.upsert(contentsOf: entities) })
    }

    /// Opens the store; `insertAll` puts decoded entities into the index, in order (see the
    /// public initializer, which passes one specialized for `Entity`).
    @usableFromInline
    init(
        fileURL: URL, options: Options, migrations: Migrations<Entity>,
        insertAll: @escaping @Sendable (inout _InMemoryStorage<Entity>, [Entity]) -> Void
    ) async throws {
        // Its indexes do not use the names, but a store that does (a column, a parameter)
        // would refuse them: say so before any data is written under them.
        if let fields = DeclaredFields.of(Entity.self) {
            try DeclaredFields.validate(fields, of: Entity.self)
        }
        let path = fileURL.path
        let queue = DispatchQueue(label: "Repositories.FileRepository \(fileURL.lastPathComponent)")
        let deadline = options.lockWait.map { ContinuousClock.now.advanced(by: $0) }
        var opened: OpenedJournal<Entity>
        while true {
            do {
                opened = try await Self.onQueue(queue) {
                    try Self.openJournal(
                        at: path, options: options, migrations: migrations, insertAll: insertAll)
                }
                break
            } catch let error as RepositoryError where error.code == .locked {
                guard let deadline, ContinuousClock.now < deadline else { throw error }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        self.fileURL = fileURL
        self.options = options
        self.setAsideRecordCount = opened.setAside
        self.migrations = migrations
        self.upgradedRecordCount = opened.upgraded
        self.format = opened.format
        self.codec = opened.codec
        self.recordStamp =
            opened.format == JournalFormat.unstampedFormat ? 0 : UInt32(migrations.currentVersion)
        self.writer = queue
        opened.file.hooks = hooks
        self.journal = JournalBox(opened.file)
        self.state = Mutex(
            _FileState(index: opened.index, fileLength: opened.fileLength, totalRecords: opened.totalRecords))
        // Rewriting makes the upgrade durable once, all at once (temporary file, rename), and
        // keeps set-aside records, which now live in the side file, from being set aside again.
        if opened.needsRewrite { try await compact() }
    }

    deinit {
        // Releasing the last reference closes the descriptor, and with it the lock.
        journal.file?.close()
    }

    // MARK: Reading

    /// - Complexity: O(1).
    @inlinable
    public func fetch(id: ID) async throws -> Entity? {
        try state.withLock { state in
            try state.checkUsable(fileURL)
            return state.index.entity(for: id)
        }
    }

    /// - Complexity: O(*n*).
    public func fetchAll() async throws -> [Entity] {
        try state.withLock { state in
            try state.checkUsable(fileURL)
            return state.index.all()
        }
    }

    /// - Complexity: O(*m*) for *m* IDs.
    public func fetch(ids: [ID]) async throws -> [Entity] {
        try state.withLock { state in
            try state.checkUsable(fileURL)
            return state.index.entities(for: ids)
        }
    }

    /// - Complexity: O(1).
    public func count() async throws -> Int {
        try state.withLock { state in
            try state.checkUsable(fileURL)
            return state.index.count
        }
    }

    /// Runs the query's conditions and declared sort keys with the indexes this repository
    /// keeps in memory over the entity's declared fields (``QueryableEntity``), each built
    /// the first time a query needs it after the file opens and kept with every write from
    /// then on; closure filters and other sort keys run after, outside
    /// the lock.
    ///
    /// - Complexity: O(log *n* + *k*) for a range on a declared field, sorted by it, with a
    ///   limit, where *k* is the number of entities read; O(*n*) for a query the indexes
    ///   cannot narrow.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try query.validate()
        let selection = try state.withLock { state in
            try state.checkUsable(fileURL)
            return state.index.select(query)
        }
        return query.finish(selection)
    }

    /// Counts with the indexes, as ``fetch(_:)`` selects, without sorting.
    public func count(_ query: Query<Entity>) async throws -> Int {
        try query.validate()
        let counted = try state.withLock { state in
            try state.checkUsable(fileURL)
            if query.predicates.isEmpty, let matches = state.index.conditionMatchCount(query) {
                return (matches: matches, selection: nil as IndexSelection<Entity>?)
            }
            return (matches: 0, selection: state.index.select(query, sorting: false))
        }
        guard let selection = counted.selection else { return query.finishedCount(matching: counted.matches) }
        return query.finishedCount(selection)
    }

    // MARK: Writing

    /// Appends a save record; returns once it is durable (per ``Options/durability``).
    ///
    /// - Throws: `encodingFailed` (nothing written) when the entity cannot be encoded;
    ///   `rejected` naming it when its encoding is larger than one record holds (4 GiB).
    /// - Complexity: O(1) amortized.
    public func save(_ entity: Entity) async throws {
        try Task.checkCancellation()
        let payload = try encode(entity)
        try Self.checkEntitySize(
            payload.count, id: "\(entity.id)", recordLimit: recordLimit, path: fileURL.path)
        try await submit(JournalFormat.record(.save, stamp: recordStamp, payload: payload), .save(entity))
    }

    /// Appends the whole batch as one record with one checksum, in one write and one fsync.
    ///
    /// - Throws: `encodingFailed` naming the entity when one cannot be encoded; `rejected`
    ///   naming the entity where the batch passes one record's limit (4 GiB in all). Either
    ///   way nothing of the batch is written.
    public func save(contentsOf entities: [Entity]) async throws {
        try Task.checkCancellation()
        if entities.isEmpty { return }
        let encoded = try entities.map { try encode($0) }
        let limit = recordLimit
        for (entity, json) in zip(entities, encoded) {
            try Self.checkEntitySize(json.count, id: "\(entity.id)", recordLimit: limit, path: fileURL.path)
        }
        try Self.checkBatchSize(
            encoded.map(\.count), ids: { entities.map { "\($0.id)" } }, recordLimit: limit, path: fileURL.path
        )
        try await submit(
            JournalFormat.record(.batch, stamp: recordStamp, payload: JournalFormat.batchPayload(encoded)),
            .saveBatch(entities))
    }

    /// Appends a delete record; deleting an absent ID writes nothing and succeeds.
    public func delete(id: ID) async throws {
        try await delete(ids: [id])
    }

    /// Appends one delete record for the IDs that are stored; absent IDs are skipped.
    ///
    /// - Throws: `rejected`, deleting nothing, when the IDs' JSON is larger than one record
    ///   holds (4 GiB).
    public func delete(ids: [ID]) async throws {
        try Task.checkCancellation()
        let present = try state.withLock { state in
            try state.checkWritable(fileURL)
            return ids.filter { state.index.contains($0) }
        }
        if present.isEmpty { return }
        let payload = try encodeIDs(present)
        try Self.checkDeleteSize(
            payload.count, count: present.count, firstID: "\(present[0])", recordLimit: recordLimit,
            path: fileURL.path)
        try await submit(
            JournalFormat.record(.delete, stamp: recordStamp, payload: payload), .delete(present))
    }

    /// Appends a clear record.
    public func deleteAll() async throws {
        try Task.checkCancellation()
        try await submit(JournalFormat.record(.clear, stamp: recordStamp, payload: []), .clear)
    }

    // MARK: Closing

    /// Waits for queued writes, flushes the file, and releases the lock. Later calls throw
    /// `closed`; closing again does nothing.
    public func close() async throws {
        let wasOpen = state.withLock { state in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        guard wasOpen else { return }
        try await Self.onQueue(writer) { [self] in
            // Writes accepted before the close may not have reached the queue yet: write
            // them first, so every caller that was told "yes" is told the truth.
            drain()
            defer {
                journal.file?.close()
                journal.file = nil  // nothing queued after this point can reach the file
            }
            if state.withLock({ $0.unsynchronized }), let file = journal.file { try file.synchronize() }
        }
    }

    // MARK: Encoding

    func encode(_ entity: Entity) throws -> [UInt8] {
        do {
            return try codec.encode(entity)
        } catch {
            throw RepositoryError.encodingFailed(id: "\(entity.id)", underlying: error)
        }
    }

    func encodeIDs(_ ids: [ID]) throws -> [UInt8] {
        do {
            return Array(try options.makeEncoder().encode(ids))
        } catch {
            throw RepositoryError.encodingFailed(id: ids.first.map { "\($0)" }, underlying: error)
        }
    }

    /// Runs blocking work on `queue` and returns its result to the calling task.
    static func onQueue<T: Sendable>(_ queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T)
        async throws -> T
    {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}

/// The journal's descriptor, touched only on the store's writer queue (and at deinit, when
/// no other reference is left).
final class JournalBox: @unchecked Sendable {
    var file: JournalFile?
    init(_ file: JournalFile) { self.file = file }
}
