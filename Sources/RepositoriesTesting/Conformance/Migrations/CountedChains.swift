import Repositories
import Synchronization

/// The chains the migration area opens its locations with: version 1, 1 → 2, and
/// 1 → 2 → 3, each upgrade counting its calls, so a law can tell an upgrade that ran from
/// one that did not.
final class CountedChains: Sendable {
    private let calls = Mutex<[Int: Int]>([:])

    /// How many times the upgrade from `version` ran since the last ``reset()``.
    func upgrades(from version: Int) -> Int { calls.withLock { $0[version, default: 0] } }

    /// Every upgrade's calls since the last ``reset()``.
    var allUpgrades: Int { calls.withLock { $0.values.reduce(0, +) } }

    func reset() { calls.withLock { $0.removeAll() } }

    private func count(_ version: Int) { calls.withLock { $0[version, default: 0] += 1 } }

    var version1: Migrations<ConformanceEntityV1> { Migrations() }

    func version2() throws -> Migrations<ConformanceEntityV2> {
        try Migrations(
            .upgrade(from: 1) { [self] (old: ConformanceEntityV1) in
                count(1)
                return ConformanceEntityV2(upgrading: old)
            })
    }

    func version3() throws -> Migrations<ConformanceEntityV3> {
        try Migrations(
            .upgrade(from: 1) { [self] (old: ConformanceEntityV1) in
                count(1)
                return ConformanceEntityV2(upgrading: old)
            },
            .upgrade(from: 2) { [self] (old: ConformanceEntityV2) in
                count(2)
                return ConformanceEntityV3(upgrading: old)
            })
    }
}
