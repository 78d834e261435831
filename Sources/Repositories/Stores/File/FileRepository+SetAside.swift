import Foundation

extension FileRepository {
    static var setAsideSuffix: String { ".undecodable.jsonl" }

    /// The side file next to the store, where set-aside records live.
    public var setAsideFileURL: URL {
        URL(fileURLWithPath: fileURL.path + Self.setAsideSuffix)
    }

    /// The records opening set aside because nothing could read them (with
    /// ``UndecodableRecords/setAside``), each with the version that wrote it, its bytes as
    /// stored, and why it could not be read. Records set aside by earlier opens are listed
    /// too, until restored or discarded.
    ///
    /// ```swift
    /// for record in try await todos.setAsideRecords() {
    ///     let name = "todo-\(record.id ?? "unknown").\(record.codec == .json ? "json" : "bin")"
    ///     try record.data.write(to: exports.appending(path: name))
    /// }
    /// ```
    ///
    /// - Returns: the records in the order they were set aside; empty when there are none.
    /// - Throws: `corrupted` naming the line when the side file holds a line that is not a
    ///   set-aside record; what reading it threw.
    public func setAsideRecords() async throws -> [SetAsideRecord] {
        try state.withLock { try $0.checkUsable(fileURL) }
        let path = setAsideFileURL.path
        return try await Self.onQueue(writer) { try Self.readSetAside(at: path) }
    }

    /// Decodes a set-aside record with the store's migrations and decoder, saves the entity
    /// durably, then removes the record from the side file.
    ///
    /// Call it once an update's ``Migrations`` can read the record (an upgrade fixed, or
    /// added for its version). Saving replaces an entity stored under the same ID since.
    /// A crash between the save and the removal leaves the record listed; restoring it again
    /// saves the same entity again.
    ///
    /// - Parameter record: a record ``setAsideRecords()`` listed.
    /// - Returns: the entity saved.
    /// - Throws: `decodingFailed` naming the record when it still cannot be read, and
    ///   `rejected` when it is no longer set aside (restored or discarded already); either
    ///   way nothing changes. What saving throws.
    @discardableResult
    public func restoreSetAside(_ record: SetAsideRecord) async throws -> Entity {
        try await requireSetAside(record)
        let entity: Entity
        do {
            entity = try migrations.decode(
                record.data, writtenBy: record.version,
                using: options.entityCodec(for: record.codec, path: setAsideFileURL.path))
        } catch {
            throw RepositoryError.decodingFailed(
                record: Self.describe(record), location: setAsideFileURL.path, underlying: error,
                recovery:
                    "The record stays set aside; fix the upgrade from version \(record.version), or save a repaired entity and call discardSetAside(_:)"
            )
        }
        try await save(entity)
        try await removeSetAside(record)
        return entity
    }

    /// Removes a set-aside record for good: for one the app repaired by hand (decode
    /// ``SetAsideRecord/data``, fix it, save it) or one the user chose to drop, after
    /// exporting it if it matters.
    ///
    /// - Parameter record: a record ``setAsideRecords()`` listed.
    /// - Throws: `rejected` when it is no longer set aside; what rewriting the side file threw.
    public func discardSetAside(_ record: SetAsideRecord) async throws {
        try await requireSetAside(record)
        try await removeSetAside(record)
    }

    private func requireSetAside(_ record: SetAsideRecord) async throws {
        try state.withLock { try $0.checkWritable(fileURL) }
        let listed = try await setAsideRecords()
        guard listed.contains(where: { $0.line == record.line }) else {
            throw RepositoryError(
                .rejected, reason: "The record \(Self.describe(record)) is not set aside (any more)",
                recovery: "List the records again with setAsideRecords(); it was restored or discarded",
                location: setAsideFileURL.path)
        }
    }

    /// Rewrites the side file without `record`'s line: a temporary file, flushed, renamed
    /// over it, so a crash leaves the old side file or the new. Removes the side file when
    /// no record is left.
    private func removeSetAside(_ record: SetAsideRecord) async throws {
        let path = setAsideFileURL.path
        try await Self.onQueue(writer) {
            let lines = try Self.sideFileLines(at: path)
            var kept = lines
            if let position = kept.firstIndex(of: Array(record.line)) { kept.remove(at: position) }
            guard kept.count < lines.count else { return }  // removed by a concurrent call
            if kept.isEmpty {
                try JournalFile.remove(path)
            } else {
                let temporary = path + ".rewriting"
                try JournalFile.remove(temporary)
                let file = try JournalFile.create(path: temporary)
                do {
                    try file.write(Array(kept.map { $0 + [0x0A] }.joined()), at: 0)
                    try file.synchronize()
                    file.close()
                    try JournalFile.rename(temporary, over: path)
                } catch {
                    file.close()
                    try? JournalFile.remove(temporary)  // best effort; the error below is what matters
                    throw error
                }
            }
            try JournalFile.synchronizeDirectory(of: path)
        }
    }

    static func describe(_ record: SetAsideRecord) -> String {
        (record.id.map { "with id \($0)" } ?? "without an id")
            + ", written by entity version \(record.version)"
    }

    // MARK: The side file

    /// Appends the undecodable records to the side file, one JSON object a line, and
    /// flushes it before the store opens without them. A record already there (the same
    /// bytes of the same version: an open that crashed before its rewrite) is not added again.
    static func appendSetAside(
        _ records: [UndecodableRecord], codec: EntityCodec.Identifier, besides path: String
    ) throws {
        let sidePath = path + setAsideSuffix
        let present = Set(try readSetAside(at: sidePath).map { SideKey(version: $0.version, data: $0.data) })
        var lines: [UInt8] = []
        for record in records
        where !present.contains(SideKey(version: record.version, data: Data(record.payload))) {
            var line: [String: Any] = [
                "id": record.idText, "version": record.version, "offset": record.offset,
                "error": record.reason, "codec": codec.description,
                "base64": Data(record.payload).base64EncodedString(),
            ]
            // JSON is kept readable too, for whoever repairs it by hand.
            if codec == .json { line["json"] = String(decoding: record.payload, as: UTF8.self) }
            lines += Array(try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])) + [0x0A]
        }
        if lines.isEmpty { return }
        if !JournalFile.exists(sidePath) { _ = try JournalFile.create(path: sidePath) }
        let file = try JournalFile.open(path: sidePath)
        try file.write(lines, at: try file.readAll().count)
        try file.synchronize()
        try JournalFile.synchronizeDirectory(of: sidePath)
    }

    private struct SideKey: Hashable {
        var version: Int
        var data: Data
    }

    /// The side file's lines, without their newlines; none when there is no side file.
    private static func sideFileLines(at path: String) throws -> [[UInt8]] {
        guard JournalFile.exists(path) else { return [] }
        let bytes = try JournalFile.open(path: path).readAll()
        return bytes.split(separator: 0x0A).map(Array.init)
    }

    /// Parses the side file. Lines written before versions (no `version`, no `base64`) read
    /// as version 1, their bytes from `json`.
    static func readSetAside(at path: String) throws -> [SetAsideRecord] {
        try sideFileLines(at: path).enumerated().map { number, line in
            let object = try? JSONSerialization.jsonObject(with: Data(line))  // a bad line is reported below
            guard let fields = object as? [String: Any], let reason = fields["error"] as? String,
                let data = (fields["base64"] as? String).flatMap({ Data(base64Encoded: $0) })
                    ?? (fields["json"] as? String).map({ Data($0.utf8) })
            else {
                throw RepositoryError.corrupted(
                    "Line \(number + 1) of the set-aside file is not a set-aside record", location: path)
            }
            let version = (fields["version"] as? Int) ?? Int(fields["version"] as? String ?? "") ?? 1
            let codec = try sideFileCodec(fields["codec"], line: number + 1, path: path)
            let id =
                fields["id"] as? String
                ?? Replay<Entity>.id(in: Array(data)[...], codec: codec == .binary ? .binary : .json)
                .map { "\($0)" }
            let offset = (fields["offset"] as? Int) ?? Int(fields["offset"] as? String ?? "")
            let error = RepositoryError(
                .decodingFailed,
                reason:
                    "The record could not be read when the store was opened, so it was set aside: \(reason)",
                recovery:
                    "Fix the upgrade from version \(version) and call restoreSetAside(_:), or save a repaired entity and call discardSetAside(_:)",
                id: id, record: offset.map { "at offset \($0) of the store then, version \(version)" },
                location: path)
            return SetAsideRecord(
                id: id, version: version, codec: codec, data: data, error: error, line: Data(line))
        }
    }

    /// The codec a side-file line names; JSON for a line written before codecs existed.
    private static func sideFileCodec(_ field: Any?, line: Int, path: String) throws -> EntityCodec.Identifier
    {
        switch field as? String {
        case nil, "json": return .json
        case "binary": return .binary
        case let other?:
            throw RepositoryError.corrupted(
                "Line \(line) of the set-aside file names codec \(other), which this version cannot read",
                location: path)
        }
    }
}
