/// Holds a double's call until the test opens it, and tells the test when the call arrived:
/// a test observes the state in the middle of a call without sleeping.
public final class Gate: Sendable {
    private let arrivals = AsyncStream.makeStream(of: Void.self)
    private let release = AsyncStream.makeStream(of: Void.self)

    /// A closed gate.
    public init() {}

    /// Called by the double: announces the call, then waits until ``open()``.
    public func pass() async {
        arrivals.continuation.yield()
        for await _ in release.stream {}
    }

    /// Waits until a call has reached ``pass()``.
    public func waitForArrival() async {
        var iterator = arrivals.stream.makeAsyncIterator()
        _ = await iterator.next()
    }

    /// Lets every waiting call, and every later one, through.
    public func open() {
        release.continuation.finish()
    }
}
