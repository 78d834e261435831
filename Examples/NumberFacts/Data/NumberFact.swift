/// A fact about a number, as the numbers API answers it: `GET /numbers/7` →
/// `{"id": 7, "text": "7 is the number of days in a week."}`.
struct NumberFact: Codable, Identifiable, Sendable, Equatable {
    /// The number the fact is about.
    var id: Int
    /// The fact, one sentence that starts with the number.
    var text: String
}
