import Repositories

extension SanagichFeature {
    /// Everything that can happen on the counter screen: the article's actions.
    enum Action: Sendable, Equatable, CustomStringConvertible {
        /// The user tapped "+" ("oshirish tugmasi": the increase button).
        case oshirTugmasi
        /// The user tapped "−" ("kamaytirish tugmasi": the decrease button).
        case kamayirTugmasi
        /// The user tapped "Fakt olish" ("fakt so'rash": ask for a fact).
        case faktSorash
        /// The fact request answered ("fakt javob": fact answer): the fact, or why there is none.
        case faktJavob(Result<NumberFact, RepositoryError>)

        /// Two answers are equal when they carry the same fact, or errors of the same code
        /// and description (`RepositoryError` itself is not `Equatable`).
        static func == (lhs: Action, rhs: Action) -> Bool {
            switch (lhs, rhs) {
            case (.oshirTugmasi, .oshirTugmasi), (.kamayirTugmasi, .kamayirTugmasi),
                (.faktSorash, .faktSorash):
                return true
            case (.faktJavob(.success(let left)), .faktJavob(.success(let right))):
                return left == right
            case (.faktJavob(.failure(let left)), .faktJavob(.failure(let right))):
                return left.code == right.code && left.description == right.description
            default:
                return false
            }
        }

        /// The action as written in Swift, with a fact shown by its number:
        /// `.faktJavob(.success(fact 7))`.
        var description: String {
            switch self {
            case .oshirTugmasi: ".oshirTugmasi"
            case .kamayirTugmasi: ".kamayirTugmasi"
            case .faktSorash: ".faktSorash"
            case .faktJavob(.success(let fact)): ".faktJavob(.success(fact \(fact.id)))"
            case .faktJavob(.failure(let error)): ".faktJavob(.failure(\(error.code)))"
            }
        }
    }
}
