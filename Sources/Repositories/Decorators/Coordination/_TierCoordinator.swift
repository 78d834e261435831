import Foundation
import Synchronization

/// The one place that orders what a two-tier decorator does to its second store (a cache, a
/// local mirror): reads of it, fills from the primary store, writes to both tiers,
/// invalidations, and replacing its whole content.
///
/// Decorators call these operations and never the parts behind them (the locks, the read
/// tracker, the suspect set), which are private. The rules it enforces:
///
/// - **Writes land in the second store in the order they landed in the primary.** Writes
///   that share a key are serialized from the primary call to the end of the second
///   store's update, so the primary never holds two overlapping writes at once and the
///   second store ends with what the primary holds, whatever order the answers come back in.
/// - **A fill never puts an older value back.** A read registers before it reads the
///   primary; its answer is copied only while holding the second store's lock for its keys,
///   and only if no write to those keys was noted since the read began. A writer notes its
///   write after the primary took it and before it takes that lock, so a copy of an older
///   value either lands before the writer's change (which then replaces it) or not at all.
/// - **A copy that may be stale is never served.** When updating or removing a copy fails,
///   the key becomes suspect and reads of it go to the primary until a later fill, write or
///   invalidation rewrites it (``Role`` says which failures make a copy suspect).
/// - **A write the primary took but the second store did not is thrown**, as
///   ``RepositoryError/Code/partiallyApplied``, never returned as success.
///
/// The suspect check is on the decorators' hit paths, which are inlinable (see
/// ``CacheAsideRepository/fetch(id:)``), so it is visible to inlined code.
@usableFromInline
final class _TierCoordinator<ID: Hashable & Sendable, Entity: Sendable>: Sendable {
    /// What the second store is for, which decides what a failure to update it means.
    enum Role: Sendable {
        /// A cache: a copy that failed to be updated is never served again by this process.
        case cache
        /// A local mirror of a remote: an older copy is still worth serving when the remote
        /// fails, so only a copy the remote no longer has, or one a write failed to update,
        /// is never served.
        case mirror
    }

    /// What a write does to the second store when the primary's write threw (the write may
    /// have landed anyway: its answer may have been lost).
    enum AfterPrimaryFailure: Sendable {
        /// Leave the copies, and keep serving them (a mirror serves older copies offline).
        case leave
        /// Leave the copies, but stop serving them until they are rewritten.
        case distrust
        /// Run the second store's part of the write anyway (a cache drops the copies).
        case applyAnyway
    }

    /// What is known about the whole collection: its IDs in order, as of `storedAt`.
    struct WholeSet: Sendable {
        var ids: [ID]
        var storedAt: Date?
    }

    private enum Whole: Hashable, Sendable { case collection }

    private let role: Role
    private let primaryName: String
    private let secondName: String
    private let report: @Sendable (TierFailure) -> Void
    /// Registers reads in progress and which of them a write raced.
    private let tracker = ReadTracker<ID>()
    /// Held while the second store is changed: by fills, writes and invalidations.
    private let secondStoreLock = KeyedAsyncLock<ID>()
    /// Held by a write from its primary call to the end of its second-store update.
    private let writeOrder = KeyedAsyncLock<ID>()
    @usableFromInline let _suspects = _SuspectKeys<ID>()
    private let byID = SingleFlight<ID, Entity?>()
    private let whole = SingleFlight<Whole, [Entity]>()
    private let recordedWholeSet = Mutex<WholeSet?>(nil)

    /// A coordinator for a second store playing `role`; `primary` and `second` name the two
    /// stores in error sentences ("remote" and "local store", "source" and "cache").
    init(
        role: Role, primary: String, second: String, report: @escaping @Sendable (TierFailure) -> Void
    ) {
        self.role = role
        self.primaryName = primary
        self.secondName = second
        self.report = report
    }

    /// How many callers are waiting on a shared read.
    var waitingCallerCount: Int { byID.waitingCallerCount + whole.waitingCallerCount }

    // MARK: Trust

    /// Whether the copy under `id` may be stale, so it must not be served.
    @inlinable
    func isSuspect(_ id: ID) -> Bool { _suspects.contains(id) }

    /// Whether every copy can be served.
    var trustsEveryCopy: Bool { _suspects.isEmpty }

    /// Whether no copy can be served.
    var trustsNoCopy: Bool { _suspects.allSuspect }

    /// `ids` less those whose copies may be stale.
    func trusted(_ ids: [ID]) -> [ID] {
        trustsEveryCopy ? ids : ids.filter { !isSuspect($0) }
    }

    /// `entities` less those whose copies may be stale.
    func trusted<E: Identifiable>(_ entities: [E]) -> [E] where E.ID == ID {
        trustsEveryCopy ? entities : entities.filter { !isSuspect($0.id) }
    }

    // MARK: Reading the second store

    /// Runs a read of the second store; a failure (other than cancellation) is reported and
    /// read as `nil`, so the caller goes to the primary store.
    @inlinable
    func read<T>(_ operation: RepositoryOperation, _ body: () async throws -> T) async throws -> T? {
        do {
            return try await body()
        } catch {
            try readFailed(operation, error)
            return nil
        }
    }

    /// Rethrows a cancellation; reports any other failure of a read of the second store.
    @usableFromInline
    func readFailed(_ operation: RepositoryOperation, _ error: any Error) throws {
        if error is CancellationError || Task.isCancelled { throw error }
        report(TierFailure(stage: .read, operation: operation, error: error))
    }

    /// The whole collection as last recorded by a fill, unless a write happened since or
    /// every copy is suspect.
    var wholeSet: WholeSet? {
        guard !trustsNoCopy else { return nil }
        return recordedWholeSet.withLock { $0 }
    }

    /// The recorded whole collection read from the second store by `fetch` (its entries for
    /// the recorded IDs, in order), when `isUsable` accepts the record, the store still holds
    /// every entry and none is suspect; `nil` otherwise (then the primary answers).
    func readWholeSet<E: Identifiable>(
        _ operation: RepositoryOperation, isUsable: (WholeSet) -> Bool = { _ in true },
        _ fetch: ([ID]) async throws -> [E]
    ) async throws -> [E]? where E.ID == ID {
        guard let wholeSet, isUsable(wholeSet) else { return nil }
        guard let entries = try await read(operation, { try await fetch(wholeSet.ids) }),
            entries.count == wholeSet.ids.count, trusted(entries).count == entries.count
        else { return nil }
        return entries
    }

    // MARK: Reading the primary, then filling

    /// Runs `load` for `id`, shared with concurrent callers for the same ID. A caller that
    /// starts after a write was noted never joins a read that began before it.
    func sharedLoad(_ id: ID, _ load: @escaping @Sendable () async throws -> Entity?) async throws -> Entity?
    {
        try await byID.run(id, load)
    }

    /// Runs `load` for the whole collection, shared with concurrent callers, as
    /// ``sharedLoad(_:_:)`` does.
    func sharedLoadAll(_ load: @escaping @Sendable () async throws -> [Entity]) async throws -> [Entity] {
        try await whole.run(.collection, load)
    }

    /// Reads the primary with `read`, then, unless a write overlapping `scope` was noted
    /// since the read began, runs `fill` with the answer while holding the second store's
    /// lock for `fillScope(answer)` (`scope` by default; `nil` skips the fill).
    func load<T>(
        _ scope: KeyScope<ID>, read: () async throws -> T,
        fillScope: ((T) -> KeyScope<ID>?)? = nil,
        fill: (T, Fill) async -> Void
    ) async throws -> T {
        try await tracker.reading(scope) { token in
            let answer = try await read()
            let lockScope: KeyScope<ID>?
            if let fillScope { lockScope = fillScope(answer) } else { lockScope = scope }
            guard let lockScope else { return answer }
            await secondStoreLock.withLock(lockScope) {
                guard tracker.isClean(token) else { return }
                await fill(answer, Fill(coordinator: self, token: token))
            }
            return answer
        }
    }

    /// What a fill may do to the second store; handed to the `fill` closure of
    /// ``load(_:read:fillScope:fill:)``, which holds the lock it needs.
    struct Fill {
        fileprivate let coordinator: _TierCoordinator
        fileprivate let token: UInt64

        /// Copies an answer of the primary into the second store with `body`. On success
        /// the copies in `scope` are trusted again; on failure the failure is reported as
        /// ``TierFailure/Stage/fill`` and the copies become suspect when the second store is
        /// a cache or when `removes` (the primary no longer has them, so serving them would
        /// be wrong). Returns whether the copy was made.
        @discardableResult
        func copy(
            _ scope: KeyScope<ID>, _ operation: RepositoryOperation, removes: Bool = false,
            _ body: () async throws -> Void
        ) async -> Bool {
            do {
                try await body()
            } catch {
                if removes || coordinator.role == .cache { coordinator._suspects.mark(scope) }
                coordinator.report(TierFailure(stage: .fill, operation: operation, error: error))
                return false
            }
            coordinator._suspects.clear(scope)
            return true
        }

        /// Makes `store` hold exactly `values`: saves the entities that changed (all of them
        /// when the entity is not `Equatable`) as one batch, then deletes the others. On a
        /// failure, reported as ``TierFailure/Stage/fill``, a cache stops serving any copy
        /// until a later replacement or invalidation succeeds; a mirror keeps serving the
        /// copies it still holds, except those the primary no longer has. Returns whether
        /// the store now holds exactly `values`.
        func replaceAll<Store: Repository>(
            in store: Store, with values: [Store.Entity], _ operation: RepositoryOperation
        ) async -> Bool where Store.ID == ID {
            let current: [Store.Entity]
            do {
                current = try await store.fetchAll()
            } catch {
                return failed(.all, operation, error)
            }
            let copies = Dictionary(current.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
            let changed = values.filter { value in
                copies[value.id].flatMap { equalIfEquatable($0, value) } != true
            }
            do {
                if !changed.isEmpty { try await store.save(contentsOf: changed) }
            } catch {
                return failed(.all, operation, error, removing: false)
            }
            let kept = Set(values.map(\.id))
            coordinator._suspects.clear(.keys(kept))
            let stale = current.map(\.id).filter { !kept.contains($0) }
            do {
                if !stale.isEmpty { try await store.delete(ids: stale) }
            } catch {
                return failed(.keys(Set(stale)), operation, error, removing: true)
            }
            coordinator._suspects.clear(.all)
            return true
        }

        private func failed(
            _ scope: KeyScope<ID>, _ operation: RepositoryOperation, _ error: any Error,
            removing: Bool = false
        ) -> Bool {
            switch coordinator.role {
            case .cache: coordinator._suspects.mark(.all)
            case .mirror: if removing { coordinator._suspects.mark(scope) }
            }
            coordinator.report(TierFailure(stage: .fill, operation: operation, error: error))
            return false
        }

        /// Reads the second store with `body`; a failure is reported as
        /// ``TierFailure/Stage/read`` and read as `nil`.
        func read<T>(_ operation: RepositoryOperation, _ body: () async throws -> T) async -> T? {
            do {
                return try await body()
            } catch {
                coordinator.report(TierFailure(stage: .read, operation: operation, error: error))
                return nil
            }
        }

        /// Records `wholeSet` as the whole collection, unless a write was noted since the
        /// read began; the check and the record are one step with respect to a write.
        func recordWholeSet(_ wholeSet: WholeSet) {
            coordinator.recordedWholeSet.withLock { recorded in
                if coordinator.tracker.isClean(token) { recorded = wholeSet }
            }
        }
    }

    // MARK: Writing both tiers

    /// Applies a write to both tiers: `primary`, then `second` (the second store's part of
    /// the write: copying it, or dropping the copies it made stale).
    ///
    /// Writes that share a key run one after the other, from the primary call to the end
    /// of the second store's update, so the second store ends with what the primary holds.
    ///
    /// - When `primary` throws, `afterPrimaryFailure` says what happens to the copies, and
    ///   the primary's error is rethrown.
    /// - When `second` throws, `removal` (if any) removes the old copy; either way a
    ///   ``RepositoryError/Code/partiallyApplied`` error is thrown that says the primary has
    ///   the write, whether the old copy is gone, and holds the second store's error.
    ///   A copy that could not be removed is never served by this process until rewritten.
    func write(
        _ scope: KeyScope<ID>, _ operation: RepositoryOperation,
        afterPrimaryFailure: AfterPrimaryFailure,
        primary: () async throws -> Void,
        second: () async throws -> Void,
        removal: (() async throws -> Void)? = nil
    ) async throws {
        try await writeOrder.withLock(scope) {
            do {
                try await primary()
            } catch {
                noteWrite(scope)
                switch afterPrimaryFailure {
                case .leave: break
                case .distrust: _suspects.mark(scope)
                case .applyAnyway: _ = await invalidate(scope, operation, noting: false, drop: second)
                }
                throw error
            }
            noteWrite(scope)
            try await secondStoreLock.withLock(scope) {
                let failure: any Error
                do {
                    try await second()
                    _suspects.clear(scope)
                    return
                } catch {
                    failure = error
                }
                var removed = false
                if let removal {
                    // The removal's own failure is told by the thrown error: the copy is still there.
                    do {
                        try await removal()
                        removed = true
                    } catch {}
                }
                if removed { _suspects.clear(scope) } else { _suspects.mark(scope) }
                throw RepositoryError.partiallyApplied(
                    operation, removed: removed, underlying: failure, primary: primaryName, second: secondName
                )
            }
        }
    }

    /// Drops the copies in `scope` with `drop`. On failure, reported as
    /// ``TierFailure/Stage/invalidate``, the copies become suspect. Returns whether it worked.
    @discardableResult
    func invalidate(
        _ scope: KeyScope<ID>, _ operation: RepositoryOperation?, drop: () async throws -> Void
    ) async -> Bool {
        await invalidate(scope, operation, noting: true, drop: drop)
    }

    private func invalidate(
        _ scope: KeyScope<ID>, _ operation: RepositoryOperation?, noting: Bool, drop: () async throws -> Void
    ) async -> Bool {
        if noting { noteWrite(scope) }
        return await secondStoreLock.withLock(scope) {
            do {
                try await drop()
                _suspects.clear(scope)
                return true
            } catch {
                _suspects.mark(scope)
                report(TierFailure(stage: .invalidate, operation: operation, error: error))
                return false
            }
        }
    }

    /// Notes a write of `scope`: reads in flight that overlap it will not copy what they
    /// read, later callers do not join them, and the whole collection is forgotten.
    private func noteWrite(_ scope: KeyScope<ID>) {
        recordedWholeSet.withLock { recorded in
            // Under the record's lock, so a fill's check-then-record cannot straddle it.
            tracker.noteWrite(scope)
            recorded = nil
        }
        switch scope {
        case .all: byID.detachAll()
        case .keys(let keys): for key in keys { byID.detach(key) }
        }
        whole.detachAll()
    }
}
