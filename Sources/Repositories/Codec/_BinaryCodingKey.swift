/// A coding key the binary coder makes itself: an unkeyed container's index in a coding
/// path, and the `super` key of `superEncoder()` / `superDecoder()`.
struct _BinaryCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    /// The key `superEncoder()` and `superDecoder()` use, as `JSONEncoder`'s does.
    static let `super` = _BinaryCodingKey(stringValue: "super")
}
