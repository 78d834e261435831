import Foundation

/// The key that names one logical write, so a server that sees the write twice (a retry
/// after a lost answer) can apply it once.
///
/// A write carries the key of the task it runs in. ``RetryingRepository`` sets one around
/// all attempts of a call when none is set; an offline outbox sets the key it stored with
/// the change; stores that talk to a server send it (`HTTPRepository` as the
/// `Idempotency-Key` header, a new key per request when none is set).
///
/// ```swift
/// try await withIdempotencyKey(change.key) {
///     try await api.save(change.entity)     // every attempt carries change.key
/// }
/// ```
///
/// A key belongs to one call: a store that sends several writes for one call (one request
/// per entity of a batch) derives one key per request from it, so each request keeps its
/// own key across retries of the call.
public enum IdempotencyKey {
    /// The key of the write running in this task, or `nil` when no caller set one.
    @TaskLocal public static var current: String?

    /// A new random key: a lowercase UUID, 36 characters.
    public static func make() -> String {
        UUID().uuidString.lowercased()
    }

    /// The key of each entity's own change in the batch call running in this task, by the
    /// entity's ID as `String(describing:)` writes it; empty when the caller has none.
    ///
    /// An outbox sends several changes in one batch call, each change with a key of its own
    /// that never changes while the change is unchanged. A store that sends a batch as one
    /// request per entity sends each entity's own key (``forEntity(_:)``), so a change resent
    /// later alone, or in another batch, carries the key the server saw and is applied once.
    @TaskLocal public static var perEntity: [String: String] = [:]

    /// The key of the change to the entity `id` in the batch call running in this task, or
    /// `nil` when the caller gave none (derive one from ``current`` then).
    public static func forEntity(_ id: some Hashable) -> String? {
        perEntity.isEmpty ? nil : perEntity[String(describing: id)]
    }
}

/// Runs `operation` with `key` as ``IdempotencyKey/current``, so every write it makes,
/// retries included, carries that key.
///
/// - Parameters:
///   - key: the key of the logical write; keep it with the change if the write may be
///     retried later (after a restart, from an outbox).
///   - isolation: the actor `operation` runs on; the caller's, by default.
///   - operation: the write.
/// - Returns: what `operation` returns.
/// - Throws: what `operation` throws.
public func withIdempotencyKey<T>(
    _ key: String, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> T
) async rethrows -> T {
    try await IdempotencyKey.$current.withValue(key, operation: operation, isolation: isolation)
}
