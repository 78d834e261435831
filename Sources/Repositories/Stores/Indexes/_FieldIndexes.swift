/// The secondary indexes of an in-memory store (`InMemoryRepository`, `FileRepository`):
/// one ``_SortedEntries`` per declared field (``QueryableEntity``).
///
/// A field's index is built the first time a query needs it, then kept with every write:
/// a store no query reads by a field (a cache, a test's reference) pays nothing for it.
@usableFromInline
struct _FieldIndexes<Entity> {
    let fields: [QueryableField<Entity>]
    /// Each field's index; `nil` until a query first needs it.
    private(set) var entries: [_SortedEntries?]
    /// Whether any index is built: writes skip all index work until one is.
    private var anyBuilt = false

    init(fields: [QueryableField<Entity>]) {
        self.fields = fields
        self.entries = Array(repeating: nil, count: fields.count)
    }

    /// Whether the index of the field at `position` is built.
    func isBuilt(_ position: Int) -> Bool { entries[position] != nil }

    /// Keeps `index`, built from every stored entity, as the index of the field at `position`.
    mutating func install(_ index: _SortedEntries, at position: Int) {
        entries[position] = index
        anyBuilt = true
    }

    /// Indexes for the fields `Entity` declares; `nil` when it declares none.
    @usableFromInline
    static func forDeclaredFields() -> _FieldIndexes? {
        guard let fields = DeclaredFields.of(Entity.self), !fields.isEmpty else { return nil }
        return _FieldIndexes(fields: fields)
    }

    /// The index of the field whose key path is `keyPath`.
    func position(of field: QueryableField<Entity>) -> Int? {
        fields.firstIndex { $0.keyPath == field.keyPath }
    }

    @usableFromInline
    mutating func insert(_ entity: Entity, slot: Int) {
        guard anyBuilt else { return }
        for field in fields.indices where entries[field] != nil {
            entries[field]?.insert(.init(key: fields[field].value(entity), slot: slot))
        }
    }

    @usableFromInline
    mutating func remove(_ entity: Entity, slot: Int) {
        guard anyBuilt else { return }
        for field in fields.indices where entries[field] != nil {
            entries[field]?.remove(.init(key: fields[field].value(entity), slot: slot))
        }
    }

    /// Moves the entries of the entity in `slot` from `old`'s values to `new`'s, where they
    /// differ.
    @usableFromInline
    mutating func replace(_ old: Entity, with new: Entity, slot: Int) {
        guard anyBuilt else { return }
        for field in fields.indices where entries[field] != nil {
            let before = fields[field].value(old)
            let after = fields[field].value(new)
            guard before != after else { continue }
            entries[field]?.remove(.init(key: before, slot: slot))
            entries[field]?.insert(.init(key: after, slot: slot))
        }
    }

    @usableFromInline
    mutating func removeAll() {
        for field in entries.indices { entries[field]?.removeAll() }
    }

    @usableFromInline
    mutating func renumber(_ newSlot: [Int]) {
        guard anyBuilt else { return }
        for field in entries.indices { entries[field]?.renumber(newSlot) }
    }
}
