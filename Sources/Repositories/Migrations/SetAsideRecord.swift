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
///     try record.data.write(to: exports.appending(path: "todo-\(record.id ?? "unknown").json"))
/// }
/// // After an update whose migrations read them:
/// for record in try await todos.setAsideRecords() {
///     _ = try await todos.restoreSetAside(record)
/// }
/// ```
public struct SetAsideRecord: Sendable {
    /// The record's `id` field, as text, when its JSON has one.
    public let id: String?
    /// The version of the entity that wrote the record.
    public let version: Int
    /// The record exactly as it was stored: the entity, encoded as JSON by that version.
    public let data: Data
    /// Why it could not be read: `decodingFailed` naming the record, with the decoder's or
    /// the upgrade's message, and what to do.
    public let error: RepositoryError
    /// The line of the side file that holds it, which restoring or discarding removes.
    let line: Data
}
