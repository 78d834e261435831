/// What a simulated API checks before it takes a write: its rules, and the framework whose
/// refusals it answers with. Given to ``ExampleRemote``, it makes the simulated API a
/// ``SimulatedAPI`` served over HTTP in process.
///
/// ```swift
/// let validation = APIValidation<Product>(.fastAPI, rules: [positivePrice])
/// let remote = ExampleRemote(options: options, resource: "products", seed: [], validation: validation)
/// ```
public struct APIValidation<Entity>: Sendable {
    /// The framework whose status and body shape a refusal takes.
    public let format: RefusalFormat
    /// The rules every entity written must pass.
    public let rules: [FieldRule<Entity>]

    /// Validation by `rules`, refused in `format`.
    public init(_ format: RefusalFormat, rules: [FieldRule<Entity>]) {
        self.format = format
        self.rules = rules
    }

    /// The rules `entity` breaks, in order; empty when it passes them all.
    public func broken(by entity: Entity) -> [FieldRule<Entity>] {
        rules.filter { !$0.accepts(entity) }
    }
}
