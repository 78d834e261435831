/// A value together with where it came from and how old it is: what the
/// stale-while-revalidate streams of ``RemoteFirstRepository`` yield.
///
/// ```swift
/// for try await product in products.values(id: 42) {
///     show(product.value)
///     if product.origin == .local { showBadge("Saved \(product.age.map(format) ?? "earlier")") }
/// }
/// ```
public struct Sourced<Value: Sendable>: Sendable {
    /// Where a value came from.
    public enum Origin: String, Sendable, Hashable, CustomStringConvertible {
        /// The local store: fast, possibly stale.
        case local
        /// The remote source, just now.
        case remote

        /// The origin's name.
        public var description: String { rawValue }
    }

    /// The value.
    public var value: Value
    /// Where it came from.
    public var origin: Origin
    /// How long ago it was read from the remote, when known: zero for a value just read,
    /// `nil` for a local value this process has not refreshed itself.
    public var age: Duration?

    /// Creates a sourced value.
    public init(_ value: Value, origin: Origin, age: Duration?) {
        self.value = value
        self.origin = origin
        self.age = age
    }
}

extension Sourced: Equatable where Value: Equatable {}
