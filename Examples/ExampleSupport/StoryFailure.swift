/// An example saw something its story says cannot happen (an offline save that went
/// through, a rollback that changed the list): the run stops with this error and exit
/// status 1 rather than print a claim that is not true.
public struct StoryFailure: Error, CustomStringConvertible {
    /// What happened, and what should have.
    public let description: String

    /// A failure that says `description`.
    public init(_ description: String) {
        self.description = description
    }
}
