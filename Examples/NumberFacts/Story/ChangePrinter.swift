/// Prints each action the counter's store applies and how it changed the state (a long
/// value that is replaced is shortened), and counts the answers effects sent:
///
/// ```
/// send .oshirTugmasi
///     son: 2 → 3
/// recv .faktJavob(.success(fact 3))
///     yuklanmoqda: true → false
///     fakt: nil → "3 is the number of primary colours of light: red, green and blue."
/// ```
@MainActor
final class ChangePrinter {
    /// How many actions effects have sent so far.
    private(set) var answers = 0

    /// A printer that has printed nothing yet.
    init() {}

    /// Prints `change`: `send` for a user's action, `recv` for an effect's answer.
    func print(_ change: Store<SanagichFeature>.Change) {
        if change.isFromEffect { answers += 1 }
        Swift.print("\(change.isFromEffect ? "recv" : "send") \(change.action)")
        let fields = StateDiff.fields(from: change.before, to: change.after)
        if fields.isEmpty { Swift.print("    (no change)") }
        for field in fields {
            Swift.print("    \(field.name): \(Self.shortened(field.old)) → \(field.new)")
        }
    }

    private static func shortened(_ value: String) -> String {
        value.count <= 40 ? value : value.prefix(36) + "…\""
    }
}
