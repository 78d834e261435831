/// Why reading a value failed, before the container that read it adds the coding path.
enum _BinaryReadFailure: Error {
    /// The bytes break the format at `offset`.
    case malformed(offset: Int, reason: String)
    /// The value at `offset` is of another kind than the one asked for.
    case mismatch(expected: Any.Type, found: String, offset: Int)
    /// The value at `offset` is nil where a `type` was asked for.
    case null(expected: Any.Type, offset: Int)

    /// The `DecodingError` a caller sees, with the coding path of the value.
    func decodingError(_ codingPath: [any CodingKey]) -> DecodingError {
        switch self {
        case .malformed(let offset, let reason):
            .dataCorrupted(
                .init(
                    codingPath: codingPath,
                    debugDescription: "Binary data is damaged at byte \(offset): \(reason)"))
        case .mismatch(let expected, let found, let offset):
            .typeMismatch(
                expected,
                .init(
                    codingPath: codingPath,
                    debugDescription: "Expected \(expected) but found \(found) at byte \(offset)"))
        case .null(let expected, let offset):
            .valueNotFound(
                expected,
                .init(
                    codingPath: codingPath,
                    debugDescription: "Expected \(expected) but found nil at byte \(offset)"))
        }
    }
}
