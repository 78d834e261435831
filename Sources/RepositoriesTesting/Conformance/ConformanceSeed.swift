import Foundation

/// The seed a conformance run uses, for every suite of this module (`RepositoryConformance`,
/// `SyncConformance`, `ChangeFeedConformance`): the one the options give, else the
/// environment's `REPOSITORY_CONFORMANCE_SEED`, else a fresh one.
enum ConformanceSeed {
    /// - Throws: ``ConformanceSetupError`` when the environment variable is set but is not a
    ///   number, rather than quietly running with another seed.
    static func resolve(_ given: UInt64?) throws -> UInt64 {
        if let given { return given }
        guard let text = ProcessInfo.processInfo.environment["REPOSITORY_CONFORMANCE_SEED"] else {
            return UInt64.random(in: 1...UInt64.max)
        }
        guard let fromEnvironment = UInt64(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConformanceSetupError(
                message: "REPOSITORY_CONFORMANCE_SEED is \"\(text)\", which is not a seed: set it to the "
                    + "number a failure printed, such as 42, or unset it")
        }
        return fromEnvironment
    }
}
