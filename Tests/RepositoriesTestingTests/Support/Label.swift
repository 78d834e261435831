/// An entity with a `String` ID, for the laws about IDs: the suite respells IDs that have
/// an accented letter in the other Unicode normalization form.
struct Label: Identifiable, Codable, Sendable, Equatable {
    var id: String
    var text: String

    /// The label for `index` at `revision`; its ID has an accented letter.
    static func make(index: Int, revision: Int) -> Label {
        Label(id: "label-\(index)-\u{E9}", text: "revision \(revision) of label \(index)")
    }

    /// A label whose ID is ASCII, so it has one spelling.
    static func plain(index: Int, revision: Int) -> Label {
        Label(id: "label-\(index)", text: "revision \(revision) of label \(index)")
    }
}
