import Synchronization

/// One ``Gate`` for each call a test expects, handed to the calls in the order they arrive:
/// a test holds overlapping calls of a double and lets them through in the order it chooses.
public final class Gates: Sendable {
    private let gates: [Gate]
    private let arrivals = Mutex(0)

    /// `count` closed gates, one for each call the test expects.
    public init(count: Int) {
        gates = (0..<count).map { _ in Gate() }
    }

    /// The gate that call `index` (from 0, in order of arrival) waits at.
    public subscript(index: Int) -> Gate {
        gates[index]
    }

    /// Called by the double: gives the call the next gate, waits there until the test opens it,
    /// and returns the call's number (from 0, in order of arrival).
    public func pass() async -> Int {
        let call = arrivals.withLock { count in
            defer { count += 1 }
            return count
        }
        precondition(call < gates.count, "Call \(call) arrived, but there are only \(gates.count) gates")
        await gates[call].pass()
        return call
    }
}
