/// One rule a ``SimulatedAPI`` checks every entity it is sent against, as a server
/// framework's validation does: the field, the framework's code and message for a value that
/// breaks it, and the test an acceptable entity passes.
///
/// ```swift
/// // A FastAPI model's `price: float = Field(gt=0)`:
/// let positivePrice = FieldRule<Product>(
///     field: "price", type: "greater_than", message: "Input should be greater than 0"
/// ) { $0.price > 0 }
/// ```
public struct FieldRule<Entity>: Sendable {
    /// The field's name in the API's JSON, such as `price`.
    public let field: String
    /// The framework's code for the failure, such as pydantic's `greater_than`: FastAPI
    /// sends it as the `type` of each error; Django REST Framework does not send one.
    public let type: String
    /// The framework's message, such as "Input should be greater than 0".
    public let message: String
    /// Whether an entity passes the rule.
    public let accepts: @Sendable (Entity) -> Bool

    /// A rule on `field` that `accepts` says an entity passes.
    public init(
        field: String, type: String, message: String, accepts: @escaping @Sendable (Entity) -> Bool
    ) {
        self.field = field
        self.type = type
        self.message = message
        self.accepts = accepts
    }
}
