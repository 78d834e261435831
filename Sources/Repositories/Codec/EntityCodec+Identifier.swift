extension EntityCodec {
    /// The one-byte name of a codec, which a store records with the data it writes so that
    /// it reads the data back with the same codec.
    ///
    /// The values are fixed forever: `0x4A` (`J`) is JSON, `0x42` (`B`) the binary format.
    /// A byte not listed here is a codec of a newer version of the package;
    /// ``EntityCodec/matching(_:location:)`` and the stores refuse it.
    public struct Identifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The byte a store records.
        public var rawValue: UInt8

        /// The identifier recorded as `rawValue`, known or not.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// JSON (`J`).
        public static let json = Identifier(rawValue: 0x4A)
        /// The binary format (`B`).
        public static let binary = Identifier(rawValue: 0x42)

        /// Throws `rejected` naming `location` when this version of the package does not know
        /// the codec: data a newer version wrote, which a store refuses with nothing written.
        package func refuseUnlessKnown(in location: String?) throws {
            guard self != .json, self != .binary else { return }
            throw RepositoryError(
                .rejected,
                reason:
                    "\(location ?? "The data") holds entities in codec \(self), which this version of Repositories cannot read",
                recovery: "Open it with a newer version of the package; nothing was written to it",
                location: location)
        }

        /// `json`, `binary`, or the byte in hexadecimal for a codec this version does not know.
        public var description: String {
            switch self {
            case .json: "json"
            case .binary: "binary"
            default: "0x" + String(rawValue, radix: 16, uppercase: true)
            }
        }
    }
}
