import Repositories
import Synchronization

/// The local store's failures that a remote-first stack worked around (an answer of the
/// API that could not be copied into it, a copy that could not be read): the stack reports
/// them to `onTierFailure` instead of throwing, and the example checks them after each step,
/// so it never claims the local store holds what it failed to write.
///
/// ```swift
/// let failures = MirrorFailures()
/// let products = api.fallback(to: file, onTierFailure: failures.record)
/// _ = try await products.fetchAll()
/// try failures.check("products.journal")   // throws StoryFailure naming each failure
/// ```
public final class MirrorFailures: Sendable {
    private let failures = Mutex<[TierFailure]>([])

    /// No failures yet.
    public init() {}

    /// Records `failure`; pass this as the stack's `onTierFailure`.
    @Sendable public func record(_ failure: TierFailure) {
        failures.withLock { $0.append(failure) }
    }

    /// The failures recorded and not yet reported by ``check(_:)``.
    public var all: [TierFailure] { failures.withLock { $0 } }

    /// Throws when anything failed since the last check, naming `mirror` and every
    /// failure; each failure is reported once.
    ///
    /// - Throws: ``StoryFailure`` listing the failures.
    public func check(_ mirror: String) throws {
        let failed = failures.withLock { failures in
            defer { failures.removeAll() }
            return failures
        }
        guard failed.isEmpty else {
            let list = failed.map(\.description).joined(separator: "; ")
            throw StoryFailure(
                "The local store \(mirror) failed behind the API, so it cannot stand in for it: \(list)")
        }
    }
}
