/// A coding key named at run time: the key of an envelope, a feed's answer or a column whose
/// name the configuration gives.
struct NamedCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    /// The key `name` as `container` holds it: spelled as given, or as snake_case
    /// conversion turned it (`has_more` as `hasMore`), so a name matches whatever key
    /// strategy the decoder has; else `name` itself, for the decoder to report missing.
    static func find(_ name: String, in container: KeyedDecodingContainer<NamedCodingKey>) -> NamedCodingKey {
        let converted = camelCased(name)
        return container.allKeys.first { $0.stringValue == name }
            ?? container.allKeys.first { $0.stringValue == converted } ?? NamedCodingKey(stringValue: name)
    }

    /// `has_more` as `hasMore`: what snake_case conversion makes of a key.
    static func camelCased(_ name: String) -> String {
        let words = name.split(separator: "_", omittingEmptySubsequences: true)
        guard let first = words.first, words.count > 1 else { return name }
        return String(first) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
