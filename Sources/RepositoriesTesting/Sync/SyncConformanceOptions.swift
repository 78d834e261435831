import Foundation
import Repositories

/// The size and weather of a ``SyncConformance`` run.
///
/// The hostile behaviours (``lostAnswerProbability``, ``halfAppliedBatchProbability``,
/// ``normalize``) are off by default; switched on, the suite puts them between each device
/// and the remote, as a real server and network do, and counts what the remote applied:
///
/// ```swift
/// var options = SyncConformanceOptions<InMemoryRepository<Note>>(seed: 7)
/// options.lostAnswerProbability = 0.2  // applied, then the device hears `unavailable`
/// options.halfAppliedBatchProbability = 0.3  // half a batch applied, then a 422
/// options.normalize = { note in  // the server keeps titles trimmed
///     var note = note
///     note.title = note.title.trimmingCharacters(in: .whitespaces)
///     return note
/// }
/// ```
public struct SyncConformanceOptions<Remote: Repository>: Sendable {
    /// The seed of the run; `nil` takes `REPOSITORY_CONFORMANCE_SEED`, else a random one
    /// (printed with any failure).
    public var seed: UInt64?
    /// How many devices share the remote.
    public var devices: Int
    /// How many random sequences are run, each on a new remote and new devices.
    public var sequences: Int
    /// How many operations each sequence makes before the final syncs.
    public var operationsPerSequence: Int
    /// How many distinct entities the operations touch (fewer: more conflicts).
    public var entityCount: Int
    /// The chance that a device is offline at a step.
    public var offlineProbability: Double
    /// The chance that a step is a `sync()` of its device.
    public var syncProbability: Double
    /// The chance that a step restarts its device: closes its stores, reopens them and
    /// builds the offline-first stack again.
    public var restartProbability: Double
    /// Runs before the final syncs, to end what the remote was told to suffer (reset a
    /// `FaultInjectingRepository`, say): the final syncs and checks need it to answer.
    public var beforeFinalSync: (@Sendable (Remote) async throws -> Void)?
    /// Where each sequence makes its devices' directories (removed at its end); `nil`: the
    /// temporary directory. A RAM disk (`/dev/shm`) makes long runs over files fast.
    public var directory: URL?
    /// The chance that the remote applies a write and its answer is lost: the device hears
    /// `unavailable`, the remote holds the change and remembers its idempotency key's answer.
    /// 0 by default.
    public var lostAnswerProbability: Double
    /// The chance that a batch of two or more changes is applied item by item, with no
    /// transaction, and refused (`rejected`, HTTP 422) after its first half was applied.
    /// Each item applied honours its change's own key (`IdempotencyKey.perEntity`), as a
    /// server taking one request per entity does, so a change the device sends again is
    /// applied once. 0 by default.
    public var halfAppliedBatchProbability: Double
    /// Rewrites each saved entity as the remote stores it, as a server that rounds dates or
    /// lowercases a field does; `nil` (the default) stores what was sent. Must be a pure
    /// function: the laws compare the remote with it applied to what was sent.
    public var normalize: (@Sendable (Remote.Entity) -> Remote.Entity)?

    /// Options for 3 devices, 4 sequences of 150 operations over 8 entities, with a remote
    /// that keeps what it is sent and always answers when online.
    public init(
        seed: UInt64? = nil, devices: Int = 3, sequences: Int = 4, operationsPerSequence: Int = 150,
        entityCount: Int = 8, offlineProbability: Double = 0.3, syncProbability: Double = 0.15,
        restartProbability: Double = 0.03, beforeFinalSync: (@Sendable (Remote) async throws -> Void)? = nil,
        directory: URL? = nil, lostAnswerProbability: Double = 0, halfAppliedBatchProbability: Double = 0,
        normalize: (@Sendable (Remote.Entity) -> Remote.Entity)? = nil
    ) {
        self.directory = directory
        self.lostAnswerProbability = lostAnswerProbability
        self.halfAppliedBatchProbability = halfAppliedBatchProbability
        self.normalize = normalize
        self.seed = seed
        self.devices = devices
        self.sequences = sequences
        self.operationsPerSequence = operationsPerSequence
        self.entityCount = entityCount
        self.offlineProbability = offlineProbability
        self.syncProbability = syncProbability
        self.restartProbability = restartProbability
        self.beforeFinalSync = beforeFinalSync
    }

    /// The seed to use (``ConformanceSeed``).
    func resolvedSeed() throws -> UInt64 { try ConformanceSeed.resolve(seed) }
}
