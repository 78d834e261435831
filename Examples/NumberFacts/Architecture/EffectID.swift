/// Names a long-running effect, so that a later effect can cancel it: TCA's cancellable ID.
///
/// ```swift
/// enum CancelID { case fact }
/// return .run { send in … }.cancellable(id: CancelID.fact, cancelInFlight: true)
/// ```
struct EffectID: Hashable, @unchecked Sendable {
    // Unchecked: the only initializer takes a Sendable value, so the box holds one.
    private let value: AnyHashable

    /// The ID `value` names; IDs made from equal values are equal.
    init(_ value: some Hashable & Sendable) {
        self.value = AnyHashable(value)
    }
}
