/// The fields that differ between two values of a state struct, in the order the struct
/// declares them: what the story prints after each action, and what a test store prints
/// when a state does not match.
enum StateDiff {
    /// One field whose value differs, each value written as Swift would write it (strings
    /// quoted, an empty optional `nil`).
    struct Field: Equatable, CustomStringConvertible {
        /// The field's name.
        let name: String
        /// Its value in the first state.
        let old: String
        /// Its value in the second state.
        let new: String

        /// `name: old → new`.
        var description: String { "\(name): \(old) → \(new)" }
    }

    /// The fields whose values differ between `before` and `after`.
    static func fields<State>(from before: State, to after: State) -> [Field] {
        let old = Mirror(reflecting: before).children
        let new = Mirror(reflecting: after).children
        return zip(old, new).compactMap { old, new in
            let field = Field(name: old.label ?? "?", old: show(old.value), new: show(new.value))
            return field.old == field.new ? nil : field
        }
    }

    private static func show(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return "nil" }
            return show(wrapped)
        }
        return String(reflecting: value)
    }
}
