import Foundation
import Repositories

/// The counter's dependency on facts (TCA: `@Dependency(\.numberFact)`): a repository of
/// ``NumberFact`` by number, held by the feature as an `AnyRepository` so that a test hands
/// it a double.
enum NumberFactClient {
    /// How long a fact is served from the cache before the API is asked again.
    static let timeToLive = Duration.seconds(5 * 60)

    /// The live client: `api` behind an in-memory cache of its answers, each served for
    /// ``timeToLive``. A number the API has no fact for is not cached: asking again asks
    /// the API again.
    ///
    /// - Parameters:
    ///   - clock: measures the age of cached facts; a `ManualClock` in tests.
    ///   - startDate: the wall-clock date at which `clock` is read as now.
    static func live(
        api: some Repository<NumberFact, Int>, clock: some Clock<Duration> = ContinuousClock(),
        startDate: Date = Date()
    ) -> AnyRepository<NumberFact, Int> {
        let cache = InMemoryRepository<Cached<NumberFact>>()
        return AnyRepository(
            api.cached(in: cache, timeToLive: timeToLive, clock: clock, startDate: startDate))
    }
}
