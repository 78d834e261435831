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
}

extension FileRepository {
    static var compactingSuffix: String { ".compacting" }
    static var setAsideSuffix: String { ".undecodable.jsonl" }

    /// Opens, locks and replays the store at `path`, creating it when absent. Blocking.
    static func openJournal(at path: String, options: Options) throws -> OpenedJournal<Entity> {
        if JournalFile.isDirectory(path) {
            throw RepositoryError.rejected(
                "\(path) is a directory, not a store file",
                recovery: "Pass the URL of a file, such as \(path)/data.store")
        }
        if !JournalFile.exists(path) { try createEmpty(at: path) }
        let file = try openLocked(path, lockWait: options.lockWait)
        // A leftover of a compaction that crashed before its rename; the store itself is whole.
        try JournalFile.remove(path + compactingSuffix)

        let bytes = try file.readAll()
        let scan: JournalFormat.Scan
        do {
            try JournalFormat.validateHeader(bytes)
            let version = JournalFormat.headerVersion(bytes)
            guard version == JournalFormat.version else {
                throw RepositoryError.rejected(
                    "\(path) was written in store format \(version), which this version of Repositories cannot read",
                    recovery: "Open it with a newer version of the package")
            }
            scan = try JournalFormat.scan(bytes)
        } catch let damage as JournalFormat.Damage {
            throw RepositoryError.corrupted(damage.reason, location: path, offset: damage.offset)
        }

        var replay = Replay<Entity>(
            path: path, decoder: options.makeDecoder(), policy: options.undecodableRecords)
        try replay.apply(scan.records)
        if !replay.undecodable.isEmpty { try setAside(replay.undecodable, besides: path) }

        if scan.tornTail {
            // Only an unacknowledged write can be torn: cut it off so the next append
            // follows the last good record.
            try file.truncate(to: scan.validLength)
            try file.synchronize()
        }
        return OpenedJournal(
            file: file, index: replay.index, fileLength: scan.validLength, totalRecords: replay.totalRecords,
            setAside: replay.undecodable.count)
    }

    /// Creates a store holding only a header: written to a temporary file, flushed, then
    /// linked into place, so no crash leaves a half-made store behind.
    private static func createEmpty(at path: String) throws {
        let temporary = path + ".creating-\(UUID().uuidString)"
        do {
            let file = try JournalFile.create(path: temporary)
            try file.write(JournalFormat.header(), at: 0)
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

    /// `locked` for the store at `path`, naming the option that waits for its holder.
    static func lockedError(at path: String, lockWait: Duration?) -> RepositoryError {
        let recovery =
            if let lockWait {
                "The other holder kept it longer than Options.lockWait (\(lockWait)); close it, or open with a longer lockWait"
            } else {
                "Close the other user of the store, or open it with Options(lockWait: .seconds(5)) to wait for it to let go"
            }
        return RepositoryError(
            .locked, reason: "Another process or instance holds the store", recovery: recovery, location: path
        )
    }

    /// Appends the undecodable records to the side file, one JSON object a line, and
    /// flushes it before the store opens without them.
    private static func setAside(_ records: [UndecodableRecord], besides path: String) throws {
        let sidePath = path + setAsideSuffix
        if !JournalFile.exists(sidePath) { _ = try JournalFile.create(path: sidePath) }
        let file = try JournalFile.open(path: sidePath)
        var lines: [UInt8] = []
        for record in records {
            let line: [String: String] = [
                "offset": String(record.offset), "error": record.reason,
                "json": String(decoding: record.payload, as: UTF8.self),
            ]
            lines += Array(try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])) + [0x0A]
        }
        try file.write(lines, at: try file.readAll().count)
        try file.synchronize()
        try JournalFile.synchronizeDirectory(of: sidePath)
    }
}

/// A record opening could not decode, kept to be set aside.
struct UndecodableRecord {
    var offset: Int
    var payload: ArraySlice<UInt8>
    var reason: String
}

/// Rebuilds the index from the journal's records, in order.
struct Replay<Entity: Codable & Identifiable & Sendable> where Entity.ID: Codable & Sendable {
    let path: String
    let decoder: JSONDecoder
    let policy: FileRepository<Entity>.UndecodableRecords
    var index = _InMemoryStorage<Entity>(capacity: nil)
    var totalRecords = 0
    var undecodable: [UndecodableRecord] = []

    init(path: String, decoder: JSONDecoder, policy: FileRepository<Entity>.UndecodableRecords) {
        self.path = path
        self.decoder = decoder
        self.policy = policy
    }

    /// An entity's JSON waiting to be decoded, with the offset of the record holding it.
    private struct PendingEntity {
        var payload: ArraySlice<UInt8>
        var offset: Int
    }

    /// Saves waiting to be decoded together: consecutive save and batch records are
    /// decoded as one JSON array, which costs what decoding the entities from one array
    /// costs, rather than one decoder run each.
    private var pending: [PendingEntity] = []

    mutating func apply(_ records: [JournalFormat.Record]) throws {
        for record in records {
            switch record.kind {
            case .save:
                pending.append(PendingEntity(payload: record.payload, offset: record.offset))
                totalRecords += 1
            case .batch:
                let entries: [ArraySlice<UInt8>]
                do {
                    entries = try JournalFormat.batchEntries(record.payload, at: record.offset)
                } catch {
                    throw RepositoryError.corrupted(error.reason, location: path, offset: error.offset)
                }
                pending += entries.map { PendingEntity(payload: $0, offset: record.offset) }
                totalRecords += entries.count
            case .delete:
                try decodePending()
                // A delete is never set aside: skipping it would bring deleted entities back.
                let ids = try decodeOrFail([Entity.ID].self, record.payload, at: record.offset)
                for id in ids { index.remove(id) }
                totalRecords += ids.count
            case .clear:
                pending.removeAll()
                index.removeAll()
                totalRecords += 1
            }
        }
        try decodePending()
    }

    /// Decodes the pending saves as one array and applies them in order. When the array
    /// does not decode, each entity is decoded alone, so the one at fault is named (or set
    /// aside) and the rest still apply.
    private mutating func decodePending() throws {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        var array: [UInt8] = [0x5B]  // [
        array.reserveCapacity(pending.reduce(2) { $0 + $1.payload.count + 1 })
        for (position, entity) in pending.enumerated() {
            if position > 0 { array.append(0x2C) }  // ,
            array += entity.payload
        }
        array.append(0x5D)  // ]
        if let entities = try? decoder.decode([Entity].self, from: Data(array)) {
            for entity in entities { index.upsert(entity) }
            return
        }
        // Some entity does not decode; find it (the error above could not say which record).
        for entity in pending {
            if let decoded = try decode(Entity.self, entity.payload, at: entity.offset) {
                index.upsert(decoded)
            } else if let id = Self.id(in: entity.payload) {
                // Set aside: an older version of the entity must not be served in its place.
                index.remove(id)
            } else {
                throw RepositoryError.decodingFailed(
                    record: Self.name(entity.payload, at: entity.offset), location: path,
                    underlying: RepositoryError.rejected(
                        "The record cannot be set aside safely: its ID cannot be read, so an older version of the entity could be served in its place"
                    ))
            }
        }
    }

    /// The ID in a record's JSON `id` field, when there is one that decodes as an ID.
    static func id(in payload: ArraySlice<UInt8>) -> Entity.ID? {
        // Only used on a record that already failed to decode; nil means "cannot tell".
        guard let fields = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
            let value = fields["id"],
            let fragment = try? JSONSerialization.data(withJSONObject: value, options: .fragmentsAllowed)
        else { return nil }
        return try? JSONDecoder().decode(Entity.ID.self, from: fragment)
    }

    private func decodeOrFail<T: Decodable>(_ type: T.Type, _ payload: ArraySlice<UInt8>, at offset: Int)
        throws
        -> T
    {
        do {
            return try decoder.decode(type, from: Data(payload))
        } catch {
            throw RepositoryError.decodingFailed(
                record: Self.name(payload, at: offset), location: path, underlying: error)
        }
    }

    /// Decodes `payload`; returns `nil` when it was set aside.
    private mutating func decode<T: Decodable>(_ type: T.Type, _ payload: ArraySlice<UInt8>, at offset: Int)
        throws -> T?
    {
        do {
            return try decoder.decode(type, from: Data(payload))
        } catch {
            guard policy == .setAside else {
                throw RepositoryError.decodingFailed(
                    record: Self.name(payload, at: offset), location: path, underlying: error)
            }
            undecodable.append(UndecodableRecord(offset: offset, payload: payload, reason: "\(error)"))
            return nil
        }
    }

    /// Names a record by its offset and, when its JSON has one, its `id`.
    static func name(_ payload: ArraySlice<UInt8>, at offset: Int) -> String {
        let object = try? JSONSerialization.jsonObject(with: Data(payload))  // only to name the record
        if let fields = object as? [String: Any], let id = fields["id"] {
            return "with id \(id) at offset \(offset)"
        }
        return "at offset \(offset)"
    }
}
