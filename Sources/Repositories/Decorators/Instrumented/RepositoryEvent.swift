/// One operation an ``InstrumentedRepository`` saw: which, how long it took, and how it
/// ended. Route it to swift-log, `os.Logger` or a metrics system.
public struct RepositoryEvent: Sendable, CustomStringConvertible {
    /// How an operation ended.
    public enum Outcome: Sendable {
        /// It returned.
        case success
        /// It threw this error (`CancellationError` included).
        case failure(any Error)

        /// Whether the operation returned.
        public var isSuccess: Bool {
            if case .success = self { return true }
            return false
        }
    }

    /// The label given to ``Repository/instrumented(label:clock:_:)``, by default the
    /// entity's type name.
    public var label: String
    /// The operation called.
    public var operation: RepositoryOperation
    /// The time from the call to its return or throw, on the decorator's clock.
    public var duration: Duration
    /// How it ended.
    public var outcome: Outcome
    /// For `fetch(_:)` and `count(_:)`, the query, split by where each part runs
    /// (``Query/description``): `store: where mass >= 1000.0, sorted by mass descending;
    /// Swift: 1 filter, limit 20`.
    public var query: String?

    /// Creates an event.
    public init(
        label: String, operation: RepositoryOperation, duration: Duration, outcome: Outcome,
        query: String? = nil
    ) {
        self.label = label
        self.operation = operation
        self.duration = duration
        self.outcome = outcome
        self.query = query
    }

    /// A log line, such as `Product fetch(id:) succeeded in 0.002 seconds`, with the query
    /// in brackets after a query's operation.
    public var description: String {
        let called = query.map { "\(operation) [\($0)]" } ?? "\(operation)"
        return switch outcome {
        case .success: "\(label) \(called) succeeded in \(duration)"
        case .failure(let error): "\(label) \(called) failed in \(duration): \(error)"
        }
    }
}
