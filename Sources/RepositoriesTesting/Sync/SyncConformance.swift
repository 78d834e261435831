import Foundation
import Repositories

/// The laws of offline-first sync, checked against any remote, local store and outbox.
///
/// The author supplies the pieces; the suite runs seeded random sequences in which several
/// devices share one remote, each step a save, delete or batch on a random device that is
/// online or offline at random, with syncs and restarts (stores closed, reopened, the stack
/// rebuilt) here and there. At the end every device goes online and syncs, twice round,
/// and the suite checks the ``SyncConformanceLaw``s: the devices and the remote agree, and
/// every acknowledged change is applied, superseded or rejected and visible.
///
/// ```swift
/// @Test func notesSync() async {
///     await SyncConformance(
///         conflicts: .lastWriterWins,
///         makeRemote: { InMemoryRepository<ConformanceEntity>() },
///         openDevice: { directory in
///             let local = try await FileRepository<ConformanceEntity>(fileURL: directory.appending(path: "store"))
///             let outbox = try await Outbox<ConformanceEntity>(fileURL: directory.appending(path: "outbox"))
///             return SyncDeviceStores(local: local, outbox: outbox) {
///                 try await local.close()
///                 try await outbox.close()
///             }
///         }
///     ).expectConformance()
/// }
/// ```
///
/// Syncs run only when the suite calls `sync()` (`automaticSync` is off), so a seed replays
/// the same sequence. The remote is taken as the truth: the suite reads it directly at the
/// end. Between each device and the remote it keeps a server's books: it honours
/// idempotency keys (a key it answered gets that answer again, nothing applied), plays the
/// hostile behaviours of ``SyncConformanceOptions`` (answers lost after the write applied,
/// batches applied in part then refused, values normalised), and counts each change the
/// remote applied, so ``SyncConformanceLaw/changesAreAppliedOnce`` holds a change sent twice
/// under two keys against the engine. It counts a write your remote returned from as
/// applied and one it threw from as not: a remote that applies and then throws (a
/// `FaultInjectingRepository` fault `.afterBase`) is miscounted; lose answers with
/// ``SyncConformanceOptions/lostAnswerProbability`` instead.
public struct SyncConformance<Remote: Repository, Local: Repository>: Sendable
where
    Local.Entity == Remote.Entity, Local.ID == Remote.ID, Remote.Entity: Codable & Equatable,
    Remote.ID: Codable
{
    /// The entity synced.
    public typealias Entity = Remote.Entity
    /// The offline-first stack of one device, as the suite builds it.
    typealias Stack = OfflineFirstRepository<_SyncLink<Remote>, Local>

    /// The size and weather of the run.
    public var options: SyncConformanceOptions<Remote>
    let conflicts: ConflictPolicy<Entity>
    let makeRemote: @Sendable () async throws -> Remote
    let openDevice: @Sendable (URL) async throws -> SyncDeviceStores<Local>
    let makeEntity: @Sendable (Int, Int) -> Entity

    /// Creates a suite for the author's own entity.
    ///
    /// - Parameters:
    ///   - options: devices, sequences, operations, the chances of going offline, syncing
    ///     and restarting, and the seed.
    ///   - conflicts: the policy every device's stack uses.
    ///   - makeRemote: returns a new, empty remote; called once per sequence and shared by
    ///     its devices.
    ///   - openDevice: opens a device's local store and outbox in `directory` (a new,
    ///     empty directory per device); called again with the same directory after a
    ///     restart, when it must read back what the device had.
    ///   - makeEntity: the entity for `(index, revision)`; its ID fixed by `index` alone, its
    ///     content different for each revision.
    public init(
        options: SyncConformanceOptions<Remote> = SyncConformanceOptions(),
        conflicts: ConflictPolicy<Entity>,
        makeRemote: @escaping @Sendable () async throws -> Remote,
        openDevice: @escaping @Sendable (_ directory: URL) async throws -> SyncDeviceStores<Local>,
        makeEntity: @escaping @Sendable (_ index: Int, _ revision: Int) -> Entity
    ) {
        self.options = options
        self.conflicts = conflicts
        self.makeRemote = makeRemote
        self.openDevice = openDevice
        self.makeEntity = makeEntity
    }

    /// Runs every sequence and checks every law; returns the report when all held.
    ///
    /// - Throws: ``SyncConformanceFailure`` listing every broken law;
    ///   ``ConformanceSetupError`` when a remote or a device cannot be made.
    @discardableResult
    public func run() async throws -> SyncConformanceReport {
        let report = try await evaluate()
        if !report.violations.isEmpty { throw SyncConformanceFailure(report: report) }
        return report
    }

    /// Runs every sequence and reports each violation as its own test failure at the
    /// caller's line, under Swift Testing or XCTest, whichever runs the test.
    @discardableResult
    public func expectConformance(
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) async -> SyncConformanceReport? {
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let report: SyncConformanceReport
        do {
            report = try await evaluate()
        } catch {
            reportTestFailure("SyncConformance could not run: \(error)", at: location)
            return nil
        }
        for violation in report.violations {
            reportTestFailure("SyncConformance (seed \(report.seed)) \(violation)", at: location)
        }
        return report
    }

    func evaluate() async throws -> SyncConformanceReport {
        let seed = try options.resolvedSeed()
        var report = SyncConformanceReport(seed: seed)
        let checked: [SyncConformanceLaw]
        if case .merge = conflicts {
            checked = SyncConformanceLaw.allCases
        } else {
            checked = SyncConformanceLaw.allCases.filter { $0 != .mergesAreKept }
            report.skipped = [.mergesAreKept]
        }
        for sequence in 1...max(1, options.sequences) {
            try Task.checkCancellation()
            var run = try await _SyncSequence(self, number: sequence, seed: seed)
            report.violations += try await run.play()
        }
        let broken = Set(report.violations.map(\.law))
        report.passed = checked.filter { !broken.contains($0) }
        return report
    }
}

extension SyncConformance where Entity == ConformanceEntity {
    /// Creates a suite over the fixture entity, ``ConformanceEntity``.
    public init(
        options: SyncConformanceOptions<Remote> = SyncConformanceOptions(),
        conflicts: ConflictPolicy<Entity>,
        makeRemote: @escaping @Sendable () async throws -> Remote,
        openDevice: @escaping @Sendable (_ directory: URL) async throws -> SyncDeviceStores<Local>
    ) {
        self.init(
            options: options, conflicts: conflicts, makeRemote: makeRemote, openDevice: openDevice,
            makeEntity: { ConformanceEntity.make(index: $0, revision: $1) })
    }
}
