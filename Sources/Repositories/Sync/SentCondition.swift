/// The condition of a conditional request that carried a change and went unanswered, kept
/// with the change (``StoredChange/sentCondition``) so the next sync sends that very request
/// again, under the same key, before it settles the change anew: a server that applied it
/// answers from its record of the key, and one that did not checks the condition, which
/// refuses it when the entity changed meanwhile.
enum SentCondition: Codable, Sendable, Equatable {
    /// Saved or deleted on the version `tag` names (`If-Match`).
    case ifMatch(String)
    /// Created where the remote held no copy (`If-None-Match: *`).
    case ifAbsent
}
