/// The secondary indexes of an in-memory store (`InMemoryRepository`, `FileRepository`):
/// one ``_SortedEntries`` per declared field (``QueryableEntity``), kept with every write.
@usableFromInline
struct _FieldIndexes<Entity> {
    let fields: [QueryableField<Entity>]
    private(set) var entries: [_SortedEntries]

    init(fields: [QueryableField<Entity>]) {
        self.fields = fields
        self.entries = Array(repeating: _SortedEntries(), count: fields.count)
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
        for field in fields.indices {
            entries[field].insert(.init(key: fields[field].value(entity), slot: slot))
        }
    }

    @usableFromInline
    mutating func remove(_ entity: Entity, slot: Int) {
        for field in fields.indices {
            entries[field].remove(.init(key: fields[field].value(entity), slot: slot))
        }
    }

    /// Moves the entries of the entity in `slot` from `old`'s values to `new`'s, where they
    /// differ.
    @usableFromInline
    mutating func replace(_ old: Entity, with new: Entity, slot: Int) {
        for field in fields.indices {
            let before = fields[field].value(old)
            let after = fields[field].value(new)
            guard before != after else { continue }
            entries[field].remove(.init(key: before, slot: slot))
            entries[field].insert(.init(key: after, slot: slot))
        }
    }

    @usableFromInline
    mutating func removeAll() {
        for field in entries.indices { entries[field].removeAll() }
    }

    @usableFromInline
    mutating func renumber(_ newSlot: [Int]) {
        for field in entries.indices { entries[field].renumber(newSlot) }
    }
}
