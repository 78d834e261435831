import Synchronization

/// One ``Gate`` for each call a test expects, handed to the calls in the order they arrive:
/// a test holds overlapping calls of a double and lets them through in the order it chooses.
///
/// ```swift
/// let gates = Gates(count: 2)
/// var products = AnyRepository<Product, Int>.unimplemented("products")
/// products.onFetchAll = {
///     let call = await gates.pass()      // call 0 waits at gates[0], call 1 at gates[1]
///     return call == 0 ? [.milk] : [.milk, .bread]
/// }
/// let first = Task { await model.load() }
/// await gates[0].waitForArrival()
/// let second = Task { await model.load() }
/// await gates[1].waitForArrival()
///
/// gates[1].open()                        // the newer load answers first…
/// await second.value
/// gates[0].open()                        // …and the older, slower answer must change nothing
/// await first.value
/// #expect(model.products == [.milk, .bread])
/// ```
public final class Gates: Sendable {
    private let gates: [Gate]
    private let arrivals = Mutex(0)

    /// `count` closed gates, one for each call the test expects.
    public init(count: Int) {
        gates = (0..<count).map { _ in Gate() }
    }

    /// How many gates there are.
    public var count: Int { gates.count }

    /// The gate that call `index` (from 0, in order of arrival) waits at.
    ///
    /// - Precondition: `index` is less than ``count``.
    public subscript(index: Int) -> Gate {
        gates[index]
    }

    /// Called by the double: gives the call the next gate, waits there until the test opens
    /// it (or the task is cancelled), and returns the call's number (from 0, in order of
    /// arrival).
    ///
    /// - Precondition: no more calls arrive than there are gates.
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
