import Foundation

/// A stored record that no upgrade could read when its store opened, kept aside rather than
/// dropped, with why.
///
/// A store opened with `undecodableRecords: .setAside` moves such records out of the way and
/// opens with the rest. List them, export their bytes, and restore them once a fixed upgrade
/// can read them:
///
/// ```swift
/// for record in try await todos.setAsideRecords() {
///     print(record.id ?? "?", record.version, record.error.localizedDescription)
///     let name = "todo-\(record.id ?? "unknown").\(record.codec == .json ? "json" : "bin")"
///     try record.data.write(to: exports.appending(path: name))
/// }
/// // After an update whose migrations read them:
/// for record in try await todos.setAsideRecords() {
///     _ = try await todos.restoreSetAside(record)
/// }
/// ```
public struct SetAsideRecord: Sendable {
    /// The record's `id` field, as text, when it has one that reads.
    public let id: String?
    /// The version of the entity that wrote the record.
    public let version: Int
    /// The codec `data` is in: the codec of the store's file (JSON for a file written
    /// before codecs existed).
    public let codec: EntityCodec.Identifier
    /// The record exactly as it was stored: the entity, encoded by `codec` by that version
    /// (JSON text you can read and repair, or the binary codec's bytes, which
    /// ``EntityCodec/binary`` decodes).
    public let data: Data
    /// Why it could not be read: `decodingFailed` naming the record, with the decoder's or
    /// the upgrade's message, and what to do.
    public let error: RepositoryError
    /// The line of the side file that holds it, which restoring or discarding removes.
    let line: Data
}
