import Foundation

/// A description of which entities to read and how to arrange them: conditions and
/// filters, sort keys, an offset and a limit, applied in that order.
///
/// Build one fluently:
///
/// ```swift
/// let cheapest = Query<Product>()
///     .filter { $0.price > 0 }
///     .sorted(by: \.price)
///     .sorted(by: \.name, .descending)   // breaks ties in price
///     .limit(10)
/// let page = try await products.fetch(cheapest)
/// ```
///
/// Entities that compare equal on every sort key keep their stored (insertion) order, so
/// paging through a sorted result is stable.
///
/// A filter is a closure, which only Swift can run: a store must read every entity to
/// apply it. An entity that declares its fields (``QueryableEntity``) can also be queried
/// by ``where(_:)``, which stores run where the data lives (an index, SQL, an API's
/// parameters), as they do sort keys made from declared key paths:
///
/// ```swift
/// let page = Query<Meteorite>()
///     .where(\.mass >= 1_000)
///     .sorted(by: \.mass, .descending)
///     .limit(20)
/// ```
///
/// Conditions run first, where the data is; the filters then run in Swift over what the
/// conditions selected.
public struct Query<Entity>: Sendable {
    /// The conditions on declared fields an entity must meet, all of them; add them with
    /// ``where(_:)``.
    public private(set) var conditions: [FieldCondition<Entity>] = []
    /// The filters an entity must pass, all of them.
    public var predicates: [@Sendable (Entity) -> Bool]
    /// The sort keys, most significant first.
    public var sortKeys: [SortKey<Entity>]
    /// How many matching entities to skip. Must not be negative.
    public var offset: Int
    /// How many entities to return at most, or `nil` for all. Must not be negative.
    public var limit: Int?

    /// Creates a query; with no arguments it matches every entity in stored order.
    public init(
        where predicate: (@Sendable (Entity) -> Bool)? = nil,
        sortedBy sortKeys: [SortKey<Entity>] = [],
        offset: Int = 0,
        limit: Int? = nil
    ) {
        self.predicates = predicate.map { [$0] } ?? []
        self.sortKeys = sortKeys
        self.offset = offset
        self.limit = limit
    }

    /// Returns a copy that also requires `isIncluded` to hold.
    public func filter(_ isIncluded: @escaping @Sendable (Entity) -> Bool) -> Query {
        var copy = self
        copy.predicates.append(isIncluded)
        return copy
    }

    /// Returns a copy sorted by `keyPath` after the existing sort keys.
    public func sorted<Value: Comparable & Sendable>(
        by keyPath: KeyPath<Entity, Value> & Sendable, _ order: SortKey<Entity>.Order = .ascending
    ) -> Query {
        sorted(by: SortKey(keyPath, order))
    }

    /// Returns a copy sorted by `key` after the existing sort keys.
    public func sorted(by key: SortKey<Entity>) -> Query {
        var copy = self
        copy.sortKeys.append(key)
        return copy
    }

    /// Returns a copy that skips the first `count` matches.
    public func offset(_ count: Int) -> Query {
        var copy = self
        copy.offset = count
        return copy
    }

    /// Returns a copy that returns at most `count` entities.
    public func limit(_ count: Int) -> Query {
        var copy = self
        copy.limit = count
        return copy
    }

    /// Checks the query can run.
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` when the offset or the limit is negative,
    ///   or when a condition reads a property the entity does not declare.
    public func validate() throws {
        for condition in conditions {
            for operand in condition.node.operands where operand.field == nil {
                throw RepositoryError.rejected(
                    "The query's condition \(condition) reads \(operand.keyPath), which \(Entity.self).queryableFields does not declare",
                    recovery:
                        "Add QueryableField(\(operand.keyPath), name: …) to \(Entity.self).queryableFields, or test the property in filter { … }"
                )
            }
        }
        if offset < 0 {
            throw RepositoryError.rejected(
                "The query's offset is \(offset); an offset cannot be negative",
                recovery: "Pass an offset of 0 or more")
        }
        if let limit, limit < 0 {
            throw RepositoryError.rejected(
                "The query's limit is \(limit); a limit cannot be negative",
                recovery: "Pass a limit of 0 or more, or nil for no limit")
        }
    }

    /// Returns whether `entity` meets every condition and passes every filter.
    public func matches(_ entity: Entity) -> Bool {
        conditions.allSatisfy { $0.matches(entity) } && predicates.allSatisfy { $0(entity) }
    }

    /// A copy that also requires `condition`, for code that builds conditions from declared
    /// fields found at run time (a server reading a request's parameters), where `where(_:)`'s
    /// `QueryableEntity` constraint is not known.
    package func requiring(_ condition: FieldCondition<Entity>) -> Query {
        var copy = self
        copy.conditions.append(condition)
        return copy
    }

    /// Whether the query filters at all, by condition or by closure.
    package var filters: Bool { !conditions.isEmpty || !predicates.isEmpty }

    /// Applies the query to `entities`, taken to be in stored order.
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` when the offset or the limit is negative.
    /// - Complexity: O(*n* log *n*) when the query sorts, O(*n*) otherwise.
    public func apply(to entities: some Sequence<Entity>) throws -> [Entity] {
        try validate()
        var result = filters ? entities.filter(matches) : Array(entities)
        if !sortKeys.isEmpty {
            result = stableSorted(result)
        }
        return page(result)
    }

    /// Finishes what a store's indexes selected: filters by the closures, sorts unless the
    /// selection is sorted, then pages.
    func finish(_ selection: IndexSelection<Entity>) -> [Entity] {
        var result = selection.entities
        if !predicates.isEmpty { result = result.filter { entity in predicates.allSatisfy { $0(entity) } } }
        if !selection.isSorted && !sortKeys.isEmpty { result = stableSorted(result) }
        return page(result)
    }

    /// How many entities ``finish(_:)`` would return when `matches` entities meet the
    /// conditions and there are no closure filters.
    package func finishedCount(matching matches: Int) -> Int {
        let afterOffset = max(0, matches - offset)
        return limit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// How many entities ``finish(_:)`` would return for `selection`, without sorting.
    func finishedCount(_ selection: IndexSelection<Entity>) -> Int {
        let matches =
            predicates.isEmpty
            ? selection.entities.count
            : selection.entities.reduce(0) { count, entity in
                count + (predicates.allSatisfy { $0(entity) } ? 1 : 0)
            }
        return finishedCount(matching: matches)
    }

    /// The entities after the offset, up to the limit.
    private func page(_ result: [Entity]) -> [Entity] {
        let start = min(offset, result.count)
        let end = limit.map { start + min($0, result.count - start) } ?? result.count
        if start == 0 && end == result.count { return result }
        return Array(result[start..<end])
    }

    package func stableSorted(_ entities: [Entity]) -> [Entity] {
        // Ties fall back to the position, so equal keys keep stored order whatever the
        // standard library's sort guarantees.
        entities.enumerated().sorted { lhs, rhs in
            switch order(lhs.element, rhs.element) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: return lhs.offset < rhs.offset
            }
        }.map(\.element)
    }

    /// How `lhs` and `rhs` compare on the sort keys, most significant first: `orderedSame`
    /// when they tie on every key (then the stored order decides).
    package func order(_ lhs: Entity, _ rhs: Entity) -> ComparisonResult {
        for key in sortKeys {
            let result = key.compare(lhs, rhs)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }
}

extension Query: CustomStringConvertible {
    /// The query, split by where each part runs: what the store receives (conditions, sort
    /// keys on declared fields, and the offset and limit when nothing runs after it), and what
    /// runs in Swift over the store's answer (closure filters, computed sort keys, and the
    /// offset and limit after them). `instrumented` events carry it.
    ///
    /// `store: where mass >= 1000.0, sorted by mass descending, limit 20`, or
    /// `store: where year >= 1900; Swift: 1 filter, sorted by a computed key, limit 20`.
    public var description: String {
        var store: [String] = []
        var swift: [String] = []
        if !conditions.isEmpty {
            store.append("where " + conditions.map(\.description).joined(separator: " && "))
        }
        if !predicates.isEmpty {
            swift.append("\(predicates.count) filter\(predicates.count == 1 ? "" : "s")")
        }
        let sortedInStore = sortKeys.allSatisfy { $0.field != nil }
        if !sortKeys.isEmpty {
            let keys = sortKeys.map { key in
                (key.field?.name ?? "a computed key") + (key.order == .descending ? " descending" : "")
            }
            let sort = "sorted by " + keys.joined(separator: ", then ")
            if sortedInStore { store.append(sort) } else { swift.append(sort) }
        }
        var window: [String] = []
        if offset != 0 { window.append("offset \(offset)") }
        if let limit { window.append("limit \(limit)") }
        if predicates.isEmpty && sortedInStore { store += window } else { swift += window }
        var parts = ["store: " + (store.isEmpty ? "everything" : store.joined(separator: ", "))]
        if !swift.isEmpty { parts.append("Swift: " + swift.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}

extension Query where Entity: QueryableEntity {
    /// Returns a copy that also requires `condition`, on the entity's declared fields, to
    /// hold; stores run it where the data lives.
    ///
    /// ```swift
    /// let recent = Query<Meteorite>().where(.all(\.year >= 2000, .hasPrefix(\.name, "A")))
    /// ```
    public func `where`(_ condition: FieldCondition<Entity>) -> Query {
        var copy = self
        copy.conditions.append(condition)
        return copy
    }

    /// Returns a copy sorted by the enum at `keyPath`, by its raw value, after the existing
    /// sort keys.
    @_disfavoredOverload
    public func sorted<Value: QueryableValue & RawRepresentable>(
        by keyPath: KeyPath<Entity, Value> & Sendable, _ order: SortKey<Entity>.Order = .ascending
    ) -> Query where Value.RawValue: Comparable & Sendable {
        sorted(by: SortKey(keyPath, order))
    }

    /// Returns a copy sorted by the optional field at `keyPath`, `nil` first when ascending,
    /// after the existing sort keys.
    public func sorted<Wrapped: QueryableValue & Comparable>(
        by keyPath: KeyPath<Entity, Wrapped?> & Sendable, _ order: SortKey<Entity>.Order = .ascending
    ) -> Query {
        sorted(by: SortKey(keyPath, order))
    }
}

extension Query {
    /// Returns a copy that also requires `condition`: for code that builds conditions from
    /// declared fields it only knows at run time (the conformance suite).
    package func adding(_ condition: FieldCondition<Entity>) -> Query {
        var copy = self
        copy.conditions.append(condition)
        return copy
    }
}
