import Foundation

/// What an in-memory store's indexes selected for a query: the entities that meet every
/// condition, for ``Query/finish(_:)`` to filter by closures, sort if need be, and page.
struct IndexSelection<Entity> {
    /// The entities that meet every condition of the query.
    var entities: [Entity]
    /// Whether `entities` are in the query's order; otherwise they are in stored order.
    var isSorted: Bool
}

extension _InMemoryStorage {
    typealias Position = _SortedEntries.Position

    /// Selects the entities meeting `query`'s conditions with the field indexes, in the
    /// query's order when its sort keys are all declared fields, and only as many as its
    /// offset and limit need when it has no closure filters.
    ///
    /// It picks the cheaper of two plans: walk the first sort key's index in order (within
    /// the range a condition gives that field) until enough entities meet every condition,
    /// or gather the smallest range any condition gives and sort what meets every condition.
    /// Without an index to use it reads every entity, in memory.
    ///
    /// - Complexity: O(log *n* + *k*) for a range and a sort on one field with a limit,
    ///   where *k* is the number of entities walked.
    mutating func select(_ query: Query<Entity>, sorting: Bool = true) -> IndexSelection<Entity> {
        buildIndexes(for: query, sorting: sorting)
        let conjuncts = query.conditions.flatMap(\.node.conjuncts)
        guard let indexes = fieldIndexes else {
            return IndexSelection(entities: scan(conjuncts), isSorted: false)
        }
        // A range holds exactly the entities meeting its condition, so the condition whose
        // range is read is not tested again.
        var best: (field: Int, ranges: [Range<Position>], size: Int, conjunct: Int)?
        for (position, conjunct) in conjuncts.enumerated() {
            guard let (field, ranges) = indexes.ranges(for: conjunct) else { continue }
            guard let size = indexes.entries[field]?.count(in: ranges) else { continue }
            if size < best?.size ?? .max { best = (field, ranges, size, position) }
        }
        let sortFields = query.sortKeys.map { $0.field.flatMap(indexes.position(of:)) }
        if sorting, let primary = sortFields.first ?? nil, sortFields.allSatisfy({ $0 != nil }),
            let index = indexes.entries[primary]
        {
            var walked = [index.start..<index.end]
            var walkSize = index.count
            var rest = conjuncts
            for (position, conjunct) in conjuncts.enumerated() {
                guard let (field, ranges) = indexes.ranges(for: conjunct), field == primary else { continue }
                let size = index.count(in: ranges)
                if size < walkSize {
                    (walked, walkSize) = (ranges, size)
                    rest = conjuncts
                    rest.remove(at: position)
                }
            }
            let wanted =
                query.predicates.isEmpty ? query.limit.map { query.offset.addingReportingOverflow($0) } : nil
            let needed = wanted.flatMap { $0.overflow ? nil : $0.partialValue }
            // Walking stops after `needed` matches; if another field's condition is far more
            // selective, gathering and sorting its range costs less.
            let selectivity = Double(max(best?.size ?? walkSize, 1)) / Double(max(walkSize, 1))
            let walkCost = needed.map { min(Double(walkSize), Double($0) / selectivity) } ?? Double(walkSize)
            let gatherCost = best.map { Double($0.size) * log2(Double($0.size) + 2) } ?? .infinity
            if walkCost <= gatherCost {
                return IndexSelection(
                    entities: walk(primary, walked, query, rest, needed: needed), isSorted: true)
            }
        }
        guard let best else { return IndexSelection(entities: scan(conjuncts), isSorted: false) }
        var slots: [Int] = []
        slots.reserveCapacity(best.size)
        guard let index = indexes.entries[best.field] else {
            return IndexSelection(entities: scan(conjuncts), isSorted: false)
        }
        for range in best.ranges {
            var position = range.lowerBound
            while position < range.upperBound {
                slots.append(index[position].slot)
                position = index.after(position)
            }
        }
        slots.sort()
        var rest = conjuncts
        rest.remove(at: best.conjunct)
        return IndexSelection(entities: entities(inSlots: slots, meeting: rest), isSorted: false)
    }

    /// How many entities meet `query`'s conditions, when the indexes know it without reading
    /// any: no conditions, or one condition an index answers; `nil` otherwise.
    mutating func conditionMatchCount(_ query: Query<Entity>) -> Int? {
        let conjuncts = query.conditions.flatMap(\.node.conjuncts)
        if conjuncts.isEmpty { return count }
        guard conjuncts.count == 1 else { return nil }
        buildIndexes(for: query, sorting: false)
        guard let indexes = fieldIndexes, let (field, ranges) = indexes.ranges(for: conjuncts[0]) else {
            return nil
        }
        return indexes.entries[field]?.count(in: ranges)
    }

    /// Builds the indexes `query` can use that no query has needed before: those of the
    /// fields its conditions compare, and when it sorts, of its first sort key. Each is built
    /// once, from every stored entity, then kept with every write.
    ///
    /// - Complexity: O(*n* log *n*) for each index built; nothing when all are built.
    private mutating func buildIndexes(for query: Query<Entity>, sorting: Bool) {
        guard let indexes = fieldIndexes else { return }
        var wanted: [QueryableField<Entity>] = []
        for conjunct in query.conditions.flatMap(\.node.conjuncts) {
            switch conjunct {
            case .compare(let operand, _, _), .oneOf(let operand, _), .prefix(let operand, _):
                if let field = operand.field { wanted.append(field) }
            case .and, .or, .not:
                break
            }
        }
        if sorting, let field = query.sortKeys.first?.field { wanted.append(field) }
        for field in wanted {
            guard let position = indexes.position(of: field), fieldIndexes?.isBuilt(position) == false else {
                continue
            }
            var built: [_SortedEntries.Entry] = []
            built.reserveCapacity(count)
            for (slot, id) in order.enumerated() {
                guard let id, let entity = entities[id] else { continue }
                built.append(_SortedEntries.Entry(key: field.value(entity), slot: slot))
            }
            built.sort { $0.precedes($1) }
            fieldIndexes?.install(_SortedEntries(sorted: built), at: position)
        }
    }

    /// Every entity meeting `conjuncts`, in stored order.
    private func scan(_ conjuncts: [FieldConditionNode<Entity>]) -> [Entity] {
        var result: [Entity] = []
        for case let id? in order {
            if let entity = entities[id], conjuncts.allSatisfy({ $0.matches(entity) }) {
                result.append(entity)
            }
        }
        return result
    }

    private func entities(inSlots slots: [Int], meeting conjuncts: [FieldConditionNode<Entity>]) -> [Entity] {
        var result: [Entity] = []
        result.reserveCapacity(slots.count)
        for slot in slots {
            if let id = order[slot], let entity = entities[id], conjuncts.allSatisfy({ $0.matches(entity) }) {
                result.append(entity)
            }
        }
        return result
    }

    /// Walks `field`'s index over `ranges` in the first sort key's direction, a group of
    /// equal values at a time (each group in stored order, then sorted by the other keys),
    /// keeping the entities that meet `conjuncts`, until `needed` are kept.
    private func walk(
        _ field: Int, _ ranges: [Range<Position>], _ query: Query<Entity>,
        _ conjuncts: [FieldConditionNode<Entity>], needed: Int?
    ) -> [Entity] {
        guard let index = fieldIndexes?.entries[field] ?? nil else { return [] }
        let descending = query.sortKeys[0].order == .descending
        var tieBreaker = query
        tieBreaker.sortKeys.removeFirst()
        var result: [Entity] = []
        for range in descending ? ranges.reversed() : ranges {
            var remaining = range
            while !remaining.isEmpty {
                // The group of entries equal to the next key in the walk's direction.
                let group: Range<Position>
                if descending {
                    let key = index[index.before(remaining.upperBound)].key
                    group = max(index.lowerBound(key), remaining.lowerBound)..<remaining.upperBound
                    remaining = remaining.lowerBound..<group.lowerBound
                } else {
                    let key = index[remaining.lowerBound].key
                    group = remaining.lowerBound..<min(index.upperBound(key), remaining.upperBound)
                    remaining = group.upperBound..<remaining.upperBound
                }
                var kept: [Entity] = []
                var position = group.lowerBound
                while position < group.upperBound {
                    let slot = index[position].slot
                    if let id = order[slot], let entity = entities[id],
                        conjuncts.allSatisfy({ $0.matches(entity) })
                    {
                        if tieBreaker.sortKeys.isEmpty {
                            result.append(entity)
                            if let needed, result.count >= needed { return result }
                        } else {
                            kept.append(entity)
                        }
                    }
                    position = index.after(position)
                }
                if !kept.isEmpty {
                    result.append(contentsOf: kept.count > 1 ? tieBreaker.stableSorted(kept) : kept)
                    if let needed, result.count >= needed { return result }
                }
            }
        }
        return result
    }
}

extension _FieldIndexes {
    /// The index and its ranges holding every entity that can meet `node`, when `node`
    /// compares one declared field; `nil` when no index narrows it.
    func ranges(for node: FieldConditionNode<Entity>) -> (
        field: Int, ranges: [Range<_SortedEntries.Position>]
    )? {
        switch node {
        case .compare(let operand, let comparison, let value):
            guard let field = operand.field.flatMap(position(of:)), let index = entries[field] else {
                return nil
            }
            switch comparison {
            case .equal: return (field, [index.lowerBound(value)..<index.upperBound(value)])
            case .less: return (field, [index.start..<index.lowerBound(value)])
            case .lessOrEqual: return (field, [index.start..<index.upperBound(value)])
            case .greater: return (field, [index.upperBound(value)..<index.end])
            case .greaterOrEqual: return (field, [index.lowerBound(value)..<index.end])
            case .notEqual:
                return (field, [index.start..<index.lowerBound(value), index.upperBound(value)..<index.end])
            }
        case .oneOf(let operand, let values):
            guard let field = operand.field.flatMap(position(of:)), let index = entries[field] else {
                return nil
            }
            return (field, Set(values).sorted().map { index.lowerBound($0)..<index.upperBound($0) })
        case .prefix(let operand, let prefix):
            guard let field = operand.field.flatMap(position(of:)), let index = entries[field] else {
                return nil
            }
            let lower = FieldValue.text(prefix)
            let end = index.partitionPoint { !($0.key < lower || $0.key.hasTextPrefix(prefix)) }
            return (field, [index.lowerBound(lower)..<end])
        case .and, .or, .not:
            return nil
        }
    }
}
