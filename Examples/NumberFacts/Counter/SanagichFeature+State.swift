extension SanagichFeature {
    /// Everything the counter screen shows: the article's `State`, plus the error it
    /// leaves out.
    struct State: Equatable {
        /// The counter's value ("son": number).
        var son = 0
        /// The fact about ``son`` ("fakt"), once one arrived; `nil` before and after a change.
        var fakt: String?
        /// Whether a fact request is in flight ("yuklanmoqda": loading), for the spinner.
        var yuklanmoqda = false
        /// Why the last fact request failed ("xato": error), in words a user understands.
        var xato: String?
    }
}
