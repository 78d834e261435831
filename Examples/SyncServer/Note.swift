/// A note, as the phone, the tablet and the server hold it.
struct Note: Identifiable, Codable, Sendable, Hashable {
    /// Identifies the note on every device and on the server.
    let id: Int
    /// The note's one line.
    var title: String

    /// The note as the story prints it: `#2 Book the dentist`.
    var line: String { "#\(id) \(title)" }
}

extension Note {
    /// The notes the phone writes at the start.
    static let written = [
        Note(id: 1, title: "Call the plumber"),
        Note(id: 2, title: "Book the dentist"),
        Note(id: 3, title: "Return the library books"),
    ]

    /// The tablet's edit of note 2.
    static let edited = Note(id: 2, title: "Book the dentist for Tuesday")

    /// The note the tablet writes while the phone is closed.
    static let added = Note(id: 4, title: "Water the plants")

    /// What every place holds once the tablet's edit and delete have crossed.
    static let afterTheTablet = [written[0], edited]

    /// What every place holds after the phone's restart.
    static let atTheEnd = [written[0], edited, added]

    /// The note the phone's share extension saves while the app runs.
    static let shared = Note(id: 5, title: "Read the article Ana shared")

    /// What every place holds at the end, once the shared note has crossed.
    static let withTheShare = atTheEnd + [shared]
}
