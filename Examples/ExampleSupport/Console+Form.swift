extension Console {
    /// Prints an entity as a form, one field a line (its name padded to `nameWidth`, then its
    /// value), with the server's messages for a field after its value (padded to
    /// `valueWidth`), and the messages about no field (`errors[""]`) first:
    ///
    /// ```
    ///   narxi    0 so'm      <- Input should be greater than 0
    /// ```
    public static func form(
        _ fields: [(name: String, value: String)], errors: [String: [String]], nameWidth: Int, valueWidth: Int
    ) {
        if let whole = errors[""] { print("  " + whole.joined(separator: " ")) }
        for (field, value) in fields {
            let line = "  " + field.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
            guard let messages = errors[field] else {
                print(line + value)
                continue
            }
            print(
                line + value.padding(toLength: valueWidth, withPad: " ", startingAt: 0) + "<- "
                    + messages.joined(separator: " "))
        }
    }
}
