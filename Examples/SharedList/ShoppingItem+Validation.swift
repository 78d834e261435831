import ExampleSupport

extension ShoppingItem {
    /// What the simulated items API checks before it takes a save, and how it refuses: as a
    /// Django REST Framework serializer whose `quantity` is an
    /// `IntegerField(min_value=1)`, with a `400` listing the field
    /// (`{"quantity": ["Ensure this value is greater than or equal to 1."]}`).
    static let apiValidation = APIValidation<ShoppingItem>(
        .djangoREST,
        rules: [
            FieldRule(
                field: "quantity", type: "min_value",
                message: "Ensure this value is greater than or equal to 1."
            ) { $0.quantity >= 1 }
        ])
}
