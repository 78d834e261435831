/// Something that needs the type an upgrade reads, not just its erased decode: a store
/// whose records nest the entity (the outbox's records hold an entity and its base) decodes
/// its own record around that type.
protocol MigrationShapeVisitor {
    /// What the visit makes.
    associatedtype Result

    /// Called with the type the upgrade reads.
    func visit<Shape: Decodable & Sendable>(_ shape: Shape.Type) throws -> Result
}

/// The type an upgrade reads, opened for a ``MigrationShapeVisitor``.
protocol MigrationShapeOpening: Sendable {
    /// Calls `visitor` with the type.
    func open<Visitor: MigrationShapeVisitor>(_ visitor: Visitor) throws -> Visitor.Result
}

/// The type `Shape`, kept for a later visit.
struct MigrationShape<Shape: Decodable & Sendable>: MigrationShapeOpening {
    func open<Visitor: MigrationShapeVisitor>(_ visitor: Visitor) throws -> Visitor.Result {
        try visitor.visit(Shape.self)
    }
}
