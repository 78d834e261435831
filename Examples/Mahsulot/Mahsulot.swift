import ExampleSupport

/// A product, as the article's model has it: pure data that does not know where it is kept
/// (the server, the local store or a test). Codable with a Codable ID, so it can live in a
/// file, and come from a real REST endpoint under `--api URL`.
struct Mahsulot: Identifiable, Codable, Sendable, Equatable {
    /// The product's unique identifier.
    let id: Int
    /// The product's name.
    var nomi: String
    /// The price, in so'm.
    var narxi: Double
    /// A short description.
    var tavsifi: String
}

extension Mahsulot {
    /// What the simulated products API holds when the example starts.
    static let namunalar = [
        Mahsulot(id: 1, nomi: "Non", narxi: 4_000, tavsifi: "Tandirda yopilgan issiq non"),
        Mahsulot(id: 2, nomi: "Ko'k choy", narxi: 15_000, tavsifi: "100 grammli quti"),
        Mahsulot(id: 3, nomi: "Guruch", narxi: 18_000, tavsifi: "Devzira guruchi, 1 kg"),
        Mahsulot(id: 4, nomi: "Qovun", narxi: 12_000, tavsifi: "Mirzacho'l qovuni, 1 dona"),
        Mahsulot(id: 5, nomi: "Paxta yog'i", narxi: 28_000, tavsifi: "Tozalangan, 1 litr"),
    ]
}

extension Mahsulot {
    /// What the simulated products API checks before it takes a save, and how it refuses:
    /// as a FastAPI app whose model says `narxi: float = Field(gt=0)`, with a `422` listing
    /// the field (`{"detail": [{"type": "greater_than", "loc": ["body", "narxi"], …}]}`).
    static let apiValidation = APIValidation<Mahsulot>(
        .fastAPI,
        rules: [
            FieldRule(field: "narxi", type: "greater_than", message: "Input should be greater than 0") {
                $0.narxi > 0
            }
        ])
}
