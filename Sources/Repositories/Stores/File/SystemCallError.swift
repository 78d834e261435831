/// A failed system call: its `errno` and the system's message for it.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    /// The `errno` value.
    public var code: Int32
    /// The system's message for `code`.
    public var message: String
    /// The message and the code.
    public var description: String { "\(message) (errno \(code))" }
}
