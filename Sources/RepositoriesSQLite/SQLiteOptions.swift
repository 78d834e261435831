import Foundation
import Repositories

/// How a ``SQLiteRepository`` stores its entities: the table, the durability of a commit,
/// how long to wait for another connection, the codec of a new table, how long the change
/// feed remembers deletions, and the JSON coders.
///
/// ```swift
/// let notes = try await SQLiteRepository<Note>(
///     fileURL: url,
///     options: SQLiteOptions(tableName: "notes", busyTimeout: .seconds(2)))
/// ```
public struct SQLiteOptions: Sendable {
    /// What SQLite does to make a commit durable (`PRAGMA synchronous`), in WAL mode.
    public enum Synchronous: String, Sendable, Hashable, CaseIterable {
        /// Every commit syncs the write-ahead log to disk before returning. Once a save
        /// returns, it survives the process being killed, the operating system crashing and
        /// the power failing. On Apple platforms this also turns on `PRAGMA fullfsync`, since
        /// their `fsync` leaves data in the drive's cache; that makes each commit slower there.
        /// The default.
        case full
        /// Commits are written to the log but synced only at checkpoints. A save that returned
        /// survives the process being killed, but the last ones may be rolled back (never
        /// corrupted) if the operating system crashes or the power fails first.
        case normal
        /// SQLite never syncs. A save that returned survives the process being killed, since
        /// the operating system holds the data, but an operating-system crash or power
        /// failure can lose recent saves and may leave the database corrupted. For caches
        /// whose content can be fetched again.
        case off

        var pragmaValue: String { rawValue.uppercased() }
    }

    /// The table's name, or `nil` for the entity's type name (such as `Note`), with every
    /// character other than an ASCII letter, digit or underscore replaced by `_`.
    ///
    /// Any name is safe: it is quoted as an SQL identifier, never spliced into SQL as it is.
    /// A name that is empty, holds a NUL character or starts with `sqlite_` is rejected.
    public var tableName: String?

    /// The durability of each commit; ``Synchronous/full`` by default.
    public var synchronous: Synchronous

    /// How long an operation waits for another connection (in this process or another) to
    /// release the database before it throws `RepositoryError` `locked`; 5 seconds by default.
    /// Rounded down to whole milliseconds.
    public var busyTimeout: Duration

    /// The codec a new table's entities are written with: `EntityCodec.Identifier.binary`
    /// unless you say otherwise, or `EntityCodec.Identifier.json` for rows people and other
    /// programs read.
    ///
    /// A table keeps the codec it was created with, which the database records: opening an
    /// existing table uses that codec whatever this says, so a JSON table written by an
    /// earlier release stays JSON and opens unchanged.
    public var codec: EntityCodec.Identifier

    /// How long the change feed remembers deleted IDs (``SQLiteRepository/changes(since:limit:)``):
    /// ``TombstoneRetention/forever`` by default, so no cursor expires. A cursor from before
    /// the newest deletion forgotten throws `cursorExpired`.
    public var tombstoneRetention: TombstoneRetention

    /// Makes the encoder that turns an entity into the JSON stored in a JSON table's row.
    /// Called once, when the repository opens.
    public var makeEncoder: @Sendable () -> JSONEncoder

    /// Makes the decoder that reads an entity back from a JSON table's row. Called once, when
    /// the repository opens.
    public var makeDecoder: @Sendable () -> JSONDecoder

    /// Creates options; every argument has the default described on its property.
    public init(
        tableName: String? = nil,
        synchronous: Synchronous = .full,
        busyTimeout: Duration = .seconds(5),
        codec: EntityCodec.Identifier = .binary,
        tombstoneRetention: TombstoneRetention = .forever,
        makeEncoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() },
        makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) {
        self.tableName = tableName
        self.synchronous = synchronous
        self.busyTimeout = busyTimeout
        self.codec = codec
        self.tombstoneRetention = tombstoneRetention
        self.makeEncoder = makeEncoder
        self.makeDecoder = makeDecoder
    }

    /// The codec that reads and writes a table whose codec is `identifier`; for JSON, with
    /// one encoder and one decoder made here.
    ///
    /// - Throws: `rejected` when this version of the package does not know the codec (a
    ///   newer release created the table).
    func entityCodec(for identifier: EntityCodec.Identifier, location: String) throws -> EntityCodec {
        try identifier.refuseUnlessKnown(in: location)
        guard identifier == .json else { return .binary }
        // One coder of each for the repository's life, as before codecs: they are made once.
        let encoder = makeEncoder()
        let decoder = makeDecoder()
        return .json(makeEncoder: { encoder }, makeDecoder: { decoder })
    }

    /// The busy timeout in whole milliseconds, clamped to what SQLite accepts.
    var busyTimeoutMilliseconds: Int32 {
        let (seconds, attoseconds) = busyTimeout.components
        guard seconds >= 0 else { return 0 }
        let milliseconds = seconds.multipliedReportingOverflow(by: 1_000)
        guard !milliseconds.overflow else { return Int32.max }
        let total = milliseconds.partialValue.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        guard !total.overflow else { return Int32.max }
        return Int32(clamping: total.partialValue)
    }
}
