/// The keys an operation touches: some of them, or every one.
enum KeyScope<Key: Hashable & Sendable>: Sendable {
    /// These keys.
    case keys(Set<Key>)
    /// Every key, including ones not known yet.
    case all

    /// One key.
    static func key(_ key: Key) -> KeyScope { .keys([key]) }

    /// Whether the two scopes share a key.
    func conflicts(with other: KeyScope) -> Bool {
        switch (self, other) {
        case (.all, _), (_, .all): true
        case (.keys(let mine), .keys(let theirs)): !mine.isDisjoint(with: theirs)
        }
    }
}
