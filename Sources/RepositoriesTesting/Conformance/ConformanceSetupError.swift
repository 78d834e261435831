/// The suite could not start: its inputs break a precondition, such as a `makeEntity` that
/// gives two indexes one ID.
public struct ConformanceSetupError: Error, Sendable, CustomStringConvertible {
    /// What is wrong and how to fix it.
    public var message: String
    /// The message.
    public var description: String { "RepositoryConformance could not start: \(message)" }
}
