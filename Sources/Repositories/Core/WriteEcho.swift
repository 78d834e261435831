import Synchronization

/// What a remote stored for the writes a task makes, as the remote said it in its answers:
/// the echo of each write, which may differ from what was sent (a server that rounds dates,
/// trims text or stamps `updated_at`).
///
/// An offline-first sync listens while it sends a change, so that a later change of the same
/// entity is based on the version the remote holds, not on the one the device sent; else
/// the server's normalising would look like another device's write and be settled as a
/// conflict. A store that hears what the server stored reports it (`HTTPRepository` reports
/// the entity a write's answer holds, when it holds one):
///
/// ```swift
/// let echo = WriteEcho()
/// try await WriteEcho.$listener.withValue(echo) {
///     try await api.save(note)
/// }
/// let stored = echo.stored(Note.self)[note.id]  // what the server kept, if it said
/// ```
///
/// Reporting is optional: a store that hears nothing reports nothing, and the listener then
/// takes the version sent. A value of another type than the listener asks for (a mapped
/// remote's DTO) is ignored.
public final class WriteEcho: Sendable {
    /// The echo listening in this task, or `nil` when no caller listens.
    @TaskLocal public static var listener: WriteEcho?

    private let values = Mutex<[any Sendable]>([])

    /// An echo that has heard nothing yet.
    public init() {}

    /// Reports to the listening echo, if any, that the remote stored `value` for a write of
    /// this task. Stores call this; a value reported twice for one ID keeps the later.
    public static func report<Value: Sendable>(_ value: Value) {
        listener?.values.withLock { $0.append(value) }
    }

    /// What the remote said it stored, by ID, for the values of type `Entity` reported.
    public func stored<Entity: Identifiable & Sendable>(_ type: Entity.Type) -> [Entity.ID: Entity] {
        let heard = values.withLock { $0 }.compactMap { $0 as? Entity }
        return Dictionary(heard.map { ($0.id, $0) }, uniquingKeysWith: { _, later in later })
    }
}
