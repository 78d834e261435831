import Foundation

extension FileRepository {
    /// When a write reaches the disk itself, not only the operating system's cache.
    public enum Durability: Sendable, Hashable {
        /// `save` returns only after the data is on disk (fsync). Concurrent writers share
        /// one fsync (group commit). Survives a process kill, an OS crash and power loss.
        case everyWrite
        /// `save` returns once the operating system has the data; the file is flushed to disk
        /// at most `interval` later. Survives a process kill; an OS crash or power loss may
        /// lose the writes of the last `interval`. For caches.
        case interval(Duration)
        /// `save` returns once the operating system has the data; the file is flushed only on
        /// `close()` and compaction. Survives a process kill; an OS crash or power loss may
        /// lose every write since the last flush. For caches you can rebuild.
        case never
    }

    /// What opening does with a record that no longer decodes (the model changed).
    public enum UndecodableRecords: Sendable, Hashable {
        /// Opening throws `decodingFailed` naming the record and the version that wrote it;
        /// nothing is changed.
        case fail
        /// Undecodable records (an entity's last record that no upgrade of the store's
        /// ``Migrations`` reads) are copied to a side file next to the store
        /// (`<store>.undecodable.jsonl`), and the store opens with the rest. List them with
        /// ``FileRepository/setAsideRecords()``, restore one with
        /// ``FileRepository/restoreSetAside(_:)`` once the migrations read it, or discard it
        /// with ``FileRepository/discardSetAside(_:)``.
        case setAside
    }

    /// How a ``FileRepository`` writes, locks and reads.
    public struct Options: Sendable {
        /// When writes reach the disk; `.everyWrite` unless you say otherwise.
        public var durability: Durability
        /// How long opening waits for another holder of the store to let go before throwing
        /// `locked`; `nil` (the default) throws at once.
        public var lockWait: Duration?
        /// What opening does with a record that no longer decodes.
        public var undecodableRecords: UndecodableRecords
        /// Compaction runs when records of replaced or deleted entities outnumber live ones
        /// and exceed this count.
        public var compactionThreshold: Int
        /// The codec a new file's entities are written with: ``EntityCodec/Identifier/binary``
        /// unless you say otherwise, or ``EntityCodec/Identifier/json`` for a file people
        /// and other programs read.
        ///
        /// A file keeps the codec it was created with, which its header records: opening an
        /// existing file uses that codec whatever this says, so a JSON file written by an
        /// earlier release stays JSON and opens unchanged.
        public var codec: EntityCodec.Identifier
        /// Makes the encoder entities of a JSON file are written with.
        public var makeEncoder: @Sendable () -> JSONEncoder
        /// Makes the decoder entities of a JSON file are read with.
        public var makeDecoder: @Sendable () -> JSONDecoder

        /// Creates options; every parameter has a safe default.
        public init(
            durability: Durability = .everyWrite,
            lockWait: Duration? = nil,
            undecodableRecords: UndecodableRecords = .fail,
            compactionThreshold: Int = 1_024,
            codec: EntityCodec.Identifier = .binary,
            makeEncoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() },
            makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
        ) {
            self.durability = durability
            self.lockWait = lockWait
            self.undecodableRecords = undecodableRecords
            self.compactionThreshold = compactionThreshold
            self.codec = codec
            self.makeEncoder = makeEncoder
            self.makeDecoder = makeDecoder
        }

        /// The codec that reads and writes a file whose header names `identifier`.
        ///
        /// - Throws: `rejected` naming the file when this version of the package does not
        ///   know the codec (a newer release wrote the file); the file is not touched.
        func entityCodec(for identifier: EntityCodec.Identifier, path: String) throws -> EntityCodec {
            try identifier.refuseUnlessKnown(in: path)
            return identifier == .json ? .json(makeEncoder: makeEncoder, makeDecoder: makeDecoder) : .binary
        }
    }
}
