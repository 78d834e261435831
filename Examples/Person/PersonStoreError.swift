import Repositories

/// The article's `UserDefaultsPersonRepositoryError`, read off the package's
/// `RepositoryError` code, with the sentence the user sees for each.
///
/// | the article's case | the package's code | when |
/// |---|---|---|
/// | `dataNotFound` | `notFound` | `require(id:)` of a person no one saved. Nothing saved yet is *not* an error any more: `fetchAll()` answers `[]` (the article threw, so a first launch logged 💥) |
/// | `decodingError` | `decodingFailed` | the stored value does not decode; the error names the element, such as `element 1 of key "person"` |
/// | `encodingError` | `encodingFailed` | a person cannot be encoded; nothing is written. A `Person` (a string, an integer, a UUID) always encodes |
/// | (new) `unreachable` | `unavailable`, `timedOut`, `circuitOpen` | the people API cannot be reached |
/// | (new) `appliedOnServerOnly` | `partiallyApplied` | the people API took the write, this device's copy could not |
enum PersonStoreError: Equatable, Sendable {
    /// No person is stored under the ID (`notFound`).
    case dataNotFound(id: String)
    /// The stored value does not decode (`decodingFailed`); `record` says which element.
    case decodingError(record: String)
    /// A person could not be encoded (`encodingFailed`); nothing was written.
    case encodingError(id: String?)
    /// The people API cannot be reached (`unavailable`, `timedOut`, `circuitOpen`).
    case unreachable(reason: String)
    /// The people API took the write but this device's copy could not (`partiallyApplied`);
    /// `reason` is the device's error. Nothing is lost.
    case appliedOnServerOnly(reason: String)
    /// Any other failure, as the error describes itself.
    case other(String)

    /// The case for `error`: a `RepositoryError` by its code, anything else as ``other(_:)``.
    init(_ error: any Error) {
        guard let error = error as? RepositoryError else {
            self = .other("\(error)")
            return
        }
        switch error.code {
        case .notFound: self = .dataNotFound(id: error.id ?? "unknown")
        case .decodingFailed: self = .decodingError(record: error.record ?? "the stored value")
        case .encodingFailed: self = .encodingError(id: error.id)
        case .unavailable, .timedOut, .circuitOpen: self = .unreachable(reason: error.reason)
        case .partiallyApplied:
            let device = (error.underlying as? RepositoryError)?.reason ?? error.underlying.map { "\($0)" }
            self = .appliedOnServerOnly(reason: device ?? error.reason)
        default: self = .other("\(error)")
        }
    }

    /// The sentence the user sees.
    var message: String {
        switch self {
        case .dataNotFound(let id):
            "That person is no longer saved (id \(id))."
        case .decodingError(let record):
            "The saved people could not be read: \(record) is damaged. Nothing was changed."
        case .encodingError(let id):
            "The person\(id.map { " \($0)" } ?? "") could not be saved, so nothing was written."
        case .unreachable(let reason):
            "\(reason). Try again when you are back online."
        case .appliedOnServerOnly(let reason):
            "The people API has the change, but this device's copy could not be updated (\(reason)). Nothing is lost."
        case .other(let description):
            description
        }
    }
}
