import Foundation

/// What opening found: the locked file, the index rebuilt from it, and its bookkeeping.
struct OpenedJournal<Entity: Identifiable & Sendable>: @unchecked Sendable where Entity.ID: Sendable {
    // @unchecked: the file is handed from the queue that opened it to the store, and used
    // by the store's queue only from then on.
    var file: JournalFile
    var index: _InMemoryStorage<Entity>
    var fileLength: Int
    var totalRecords: Int
    var setAside: Int
    /// The format the store writes from now on: the file's own, unless it must be migrated.
    var format: UInt16
    /// The codec of the file's entities, which the store writes with from now on.
    var codec: EntityCodec
    /// How many records (a batch's entities counted one by one) were written by an older
    /// version of the entity and upgraded.
    var upgraded: Int
    /// Whether opening must rewrite the file before anything else is written: records
    /// were upgraded or set aside, or a format 1 file is opened by an app past version 1.
    var needsRewrite: Bool
}

extension FileRepository {
    static var compactingSuffix: String { ".compacting" }

    /// Opens, locks and replays the store at `path`, creating it when absent. Blocking.
    ///
    /// Nothing is written to the store file here but the cut of a torn final record: an
    /// upgrade is made durable afterwards by a rewrite (``compact()``), all at once.
    static func openJournal(
        at path: String, options: Options, migrations: Migrations<Entity>,
        insertAll: @escaping @Sendable (inout _InMemoryStorage<Entity>, [Entity]) -> Void
    ) throws -> OpenedJournal<Entity> {
        if JournalFile.isDirectory(path) {
            throw RepositoryError.rejected(
                "\(path) is a directory, not a store file",
                recovery: "Pass the URL of a file, such as \(path)/data.store")
        }
        if !JournalFile.exists(path) { try createEmpty(at: path, codec: options.codec) }
        let file = try openLocked(path, lockWait: options.lockWait)
        // A leftover of a compaction that crashed before its rename; the store itself is whole.
        try JournalFile.remove(path + compactingSuffix)

        let bytes = try file.readAll()
        let scan: JournalFormat.Scan
        let format: UInt16
        do {
            try JournalFormat.validateHeader(bytes)
            format = JournalFormat.headerVersion(bytes)
            guard JournalFormat.readableFormats.contains(format) else {
                throw RepositoryError.rejected(
                    "\(path) was written in store format \(format), which this version of Repositories cannot read",
                    recovery: "Open it with a newer version of the package")
            }
            scan = try JournalFormat.scan(bytes, format: format)
        } catch let damage as JournalFormat.Damage {
            throw RepositoryError.corrupted(damage.reason, location: path, offset: damage.offset)
        }
        let codec = try options.entityCodec(for: JournalFormat.headerCodec(bytes, format: format), path: path)
        // Before anything is decoded or written: data of a newer app is refused whole.
        if let newer = scan.records.first(where: { $0.entityVersion > migrations.currentVersion }) {
            throw RepositoryError.writtenByNewerVersion(
                newer.entityVersion, knownVersion: migrations.currentVersion, location: path,
                record: "at offset \(newer.offset)")
        }

        var replay = Replay<Entity>(
            path: path, codec: codec, makeDecoder: options.makeDecoder, policy: options.undecodableRecords,
            migrations: migrations, insertAll: insertAll)
        try replay.apply(scan.records)
        if !replay.undecodable.isEmpty {
            try appendSetAside(replay.undecodable, codec: codec.identifier, besides: path)
        }
        let migrating = format == JournalFormat.unstampedFormat && migrations.currentVersion > 1

        if scan.tornTail {
            // Only an unacknowledged write can be torn: cut it off so the next append
            // follows the last good record.
            try file.truncate(to: scan.validLength)
            try file.synchronize()
        }
        return OpenedJournal(
            file: file, index: replay.index, fileLength: scan.validLength, totalRecords: replay.totalRecords,
            setAside: replay.undecodable.count, format: migrating ? JournalFormat.format : format,
            codec: codec,
            upgraded: replay.upgraded,
            needsRewrite: migrating || replay.upgraded > 0 || !replay.undecodable.isEmpty)
    }

    /// Creates a store holding only a header: written to a temporary file, flushed, then
    /// linked into place, so no crash leaves a half-made store behind.
    private static func createEmpty(at path: String, codec: EntityCodec.Identifier) throws {
        let temporary = path + ".creating-\(UUID().uuidString)"
        do {
            let file = try JournalFile.create(path: temporary)
            try file.write(JournalFormat.header(format: JournalFormat.format, codec: codec), at: 0)
            try file.synchronize()
            file.close()
            _ = try JournalFile.link(temporary, to: path)  // false: another opener made it first
            try JournalFile.remove(temporary)
            try JournalFile.synchronizeDirectory(of: path)
        } catch {
            try? JournalFile.remove(temporary)  // best effort; the original error is what matters
            throw error
        }
    }

    /// Opens `path` and takes its lock, making sure the file locked is still the one the
    /// path names (a compaction in another process may have renamed a new file over it).
    private static func openLocked(_ path: String, lockWait: Duration?) throws -> JournalFile {
        for _ in 0..<8 {
            let file = try JournalFile.open(path: path)
            guard try file.tryLock() else { throw lockedError(at: path, lockWait: lockWait) }
            let locked = try file.identity()
            if let current = JournalFile.identity(of: path), current == locked { return file }
            file.close()
        }
        throw lockedError(at: path, lockWait: lockWait)
    }

    /// `locked` for the store at `path`, naming the option that waits for its holder, and the
    /// store to choose when two processes must use the data at once.
    static func lockedError(at path: String, lockWait: Duration?) -> RepositoryError {
        let waiting =
            if let lockWait {
                "The other holder kept it longer than Options.lockWait (\(lockWait)); close it, or open with a longer lockWait"
            } else {
                "Close the other user of the store, or open it with Options(lockWait: .seconds(5)) to wait for it to let go"
            }
        let recovery =
            waiting
            + ". A FileRepository serves one instance at a time; for data two processes use at once "
            + "(an app and its extension), choose SQLiteRepository (RepositoriesSQLite), which several processes open together"
        return RepositoryError(
            .locked, reason: "Another process or instance holds the store", recovery: recovery, location: path
        )
    }
}

/// A record opening could not decode, kept to be set aside.
struct UndecodableRecord {
    var offset: Int
    var payload: ArraySlice<UInt8>
    var reason: String
    /// The entity version that wrote it.
    var version: Int
    /// The ID in its `id` field, as text.
    var idText: String
    /// The ID, to drop the record when a later one replaces or deletes its entity.
    var id: AnyHashable
}

/// Rebuilds the index from the journal's records, in order.
struct Replay<Entity: Codable & Identifiable & Sendable> where Entity.ID: Codable & Sendable {
    let path: String
    /// The codec of the file's entities.
    let codec: EntityCodec
    /// Makes a JSON decoder for each chunk of a JSON file decoded at once with others.
    let makeDecoder: @Sendable () -> JSONDecoder
    /// The decoder of the IDs of delete records, which are JSON in every file.
    let decoder: JSONDecoder
    let policy: FileRepository<Entity>.UndecodableRecords
    let migrations: Migrations<Entity>
    /// Inserts decoded entities into `index`, in order: specialized for `Entity` by the
    /// app's module (see ``FileRepository/init(fileURL:options:migrations:)``).
    let insertAll: @Sendable (inout _InMemoryStorage<Entity>, [Entity]) -> Void
    var index = _InMemoryStorage<Entity>(capacity: nil)
    var totalRecords = 0
    var undecodable: [UndecodableRecord] = []
    /// Entities read from records of an older version (each entity of a batch counts).
    var upgraded = 0

    init(
        path: String, codec: EntityCodec, makeDecoder: @escaping @Sendable () -> JSONDecoder,
        policy: FileRepository<Entity>.UndecodableRecords, migrations: Migrations<Entity>,
        insertAll: @escaping @Sendable (inout _InMemoryStorage<Entity>, [Entity]) -> Void
    ) {
        self.insertAll = insertAll
        self.path = path
        self.codec = codec
        self.makeDecoder = makeDecoder
        self.decoder = makeDecoder()
        self.policy = policy
        self.migrations = migrations
    }

    /// An entity's JSON waiting to be decoded, with the offset of the record holding it and
    /// the entity version that wrote it.
    private struct PendingEntity {
        var payload: ArraySlice<UInt8>
        var offset: Int
        var version: Int
    }

    /// Saves waiting to be decoded together: consecutive save and batch records are
    /// decoded as one JSON array, which costs what decoding the entities from one array
    /// costs, rather than one decoder run each.
    private var pending: [PendingEntity] = []

    mutating func apply(_ records: [JournalFormat.Record]) throws {
        for record in records {
            switch record.kind {
            case .save:
                pending.append(
                    PendingEntity(
                        payload: record.payload, offset: record.offset, version: record.entityVersion))
                totalRecords += 1
            case .batch:
                let entries: [ArraySlice<UInt8>]
                do {
                    entries = try JournalFormat.batchEntries(record.payload, at: record.offset)
                } catch {
                    throw RepositoryError.corrupted(error.reason, location: path, offset: error.offset)
                }
                pending += entries.map {
                    PendingEntity(payload: $0, offset: record.offset, version: record.entityVersion)
                }
                totalRecords += entries.count
            case .delete:
                try decodePending()
                // A delete is never set aside: skipping it would bring deleted entities back.
                let ids = try decodeOrFail([Entity.ID].self, record.payload, at: record.offset)
                for id in ids { index.remove(id) }
                if !undecodable.isEmpty { forgetUndecodable(Set(ids.map { AnyHashable($0) })) }
                totalRecords += ids.count
            case .clear:
                pending.removeAll()
                index.removeAll()
                undecodable.removeAll()
                totalRecords += 1
            }
        }
        try decodePending()
    }

    /// Decodes the pending saves, a run of one entity version at a time, each run as one
    /// array (upgraded through the migrations when older), and applies them in order.
    private mutating func decodePending() throws {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        var start = 0
        while start < pending.count {
            let version = pending[start].version
            var end = start + 1
            while end < pending.count, pending[end].version == version { end += 1 }
            try decodeRun(pending[start..<end], version: version)
            start = end
        }
    }

    /// Decodes entities of one version in chunks, on every core, and inserts each chunk into
    /// the index as soon as it and the chunks before it are decoded, while the later ones are
    /// still being decoded. From a chunk that does not decode on, each entity is decoded
    /// alone, so the one at fault is named (or set aside) and the rest still apply.
    private mutating func decodeRun(_ run: ArraySlice<PendingEntity>, version: Int) throws {
        if version < migrations.currentVersion { upgraded += run.count }
        index.reserveCapacity(index.count + run.count)
        var decodedUpTo = run.startIndex
        let (migrations, codec, makeDecoder) = (migrations, codec, makeDecoder)
        ParallelChunks.forEachInOrder(count: run.count, chunkSize: Self.entitiesPerChunk) { chunk in
            let slice = run[(run.startIndex + chunk.lowerBound)..<(run.startIndex + chunk.upperBound)]
            // The error is not lost: each entity is decoded alone below, and the one that fails says why.
            return try? Self.decodeChunk(
                slice, version: version, migrations: migrations, codec: codec, makeDecoder: makeDecoder)
        } consume: { chunk, entities in
            guard let entities else { return false }
            insertAll(&index, entities)
            if !undecodable.isEmpty { forgetUndecodable(Set(entities.map { AnyHashable($0.id) })) }
            decodedUpTo = run.startIndex + chunk.upperBound
            return true
        }
        for entity in run[decodedUpTo...] {
            if let decoded = try decode(entity) {
                index.upsert(decoded)
                if !undecodable.isEmpty { forgetUndecodable([AnyHashable(decoded.id)]) }
            }
        }
    }

    /// How many entities one chunk holds: enough that handing a chunk to a core costs little
    /// beside decoding it, few enough that the index is built while the rest decode.
    static var entitiesPerChunk: Int { 2_048 }

    /// Decodes `slice`: a JSON file's as one JSON array, with its own decoder (one decoder
    /// run costs less than one per entity); a binary file's entity by entity.
    private static func decodeChunk(
        _ slice: ArraySlice<PendingEntity>, version: Int, migrations: Migrations<Entity>, codec: EntityCodec,
        makeDecoder: @escaping @Sendable () -> JSONDecoder
    ) throws -> [Entity] {
        guard codec.identifier == .json else {
            return try slice.map { try migrations.decode($0.payload, writtenBy: version, using: codec) }
        }
        var array: [UInt8] = [0x5B]  // [
        array.reserveCapacity(slice.reduce(2) { $0 + $1.payload.count + 1 })
        for (position, entity) in slice.enumerated() {
            if position > 0 { array.append(0x2C) }  // ,
            array += entity.payload
        }
        array.append(0x5D)  // ]
        return try migrations.decodeArray(Data(array), writtenBy: version, using: makeDecoder())
    }

    /// Drops set-aside records of entities a later record replaced or deleted: they no
    /// longer hold the entity's data, and restoring one would bring back what was replaced.
    private mutating func forgetUndecodable(_ ids: Set<AnyHashable>) {
        undecodable.removeAll { ids.contains($0.id) }
    }

    /// The `id` field of an encoded entity.
    private struct IDField: Decodable {
        var id: Entity.ID
    }

    /// The ID in an encoded entity's `id` field, when there is one that decodes as an ID.
    static func id(in payload: ArraySlice<UInt8>, codec: EntityCodec) -> Entity.ID? {
        // Only used on a record that already failed to decode; nil means "cannot tell".
        try? codec.decode(IDField.self, from: payload).id
    }

    private func decodeOrFail<T: Decodable>(_ type: T.Type, _ payload: ArraySlice<UInt8>, at offset: Int)
        throws
        -> T
    {
        do {
            return try decoder.decode(type, from: Data(payload))
        } catch {
            throw RepositoryError.decodingFailed(
                record: "at offset \(offset)", location: path, underlying: error)
        }
    }

    /// Decodes one pending entity through the migrations; returns `nil` when it was set aside.
    private mutating func decode(_ entity: PendingEntity) throws -> Entity? {
        do {
            return try migrations.decode(entity.payload, writtenBy: entity.version, using: codec)
        } catch {
            guard policy == .setAside else {
                let newest = migrations.currentVersion
                let fix =
                    entity.version < newest
                    ? "Check the upgrade from version \(entity.version) in the store's Migrations: it cannot read this record"
                    : "If the model changed, raise the entity's version with an upgrade in the store's Migrations (Migrations<\(Entity.self)>)"
                throw RepositoryError.decodingFailed(
                    record: Self.name(entity.payload, at: entity.offset, codec: codec)
                        + ", written by entity version \(entity.version)",
                    location: path, underlying: error,
                    recovery:
                        "\(fix), or open with Options(undecodableRecords: .setAside) to open with the rest and keep this record aside. The file was left untouched"
                )
            }
            guard let id = Self.id(in: entity.payload, codec: codec) else {
                throw RepositoryError.decodingFailed(
                    record: Self.name(entity.payload, at: entity.offset, codec: codec), location: path,
                    underlying: RepositoryError.rejected(
                        "The record cannot be set aside safely: its ID cannot be read, so an older version of the entity could be served in its place"
                    ))
            }
            // Set aside: an older version of the entity must not be served in its place.
            index.remove(id)
            undecodable.removeAll { $0.id == AnyHashable(id) }  // only the entity's last record matters
            undecodable.append(
                UndecodableRecord(
                    offset: entity.offset, payload: entity.payload, reason: "\(error)",
                    version: entity.version,
                    idText: "\(id)", id: AnyHashable(id)))
            return nil
        }
    }

    /// Names a record by its offset and, when its entity's `id` field reads, its ID.
    static func name(_ payload: ArraySlice<UInt8>, at offset: Int, codec: EntityCodec) -> String {
        if let id = id(in: payload, codec: codec) { return "with id \(id) at offset \(offset)" }
        return "at offset \(offset)"
    }
}
