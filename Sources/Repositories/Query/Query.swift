import Foundation

/// A description of which entities to read and how to arrange them: a filter, sort keys,
/// an offset and a limit, applied in that order.
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
public struct Query<Entity>: Sendable {
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
    /// - Throws: ``RepositoryError/Code/rejected`` when the offset or the limit is negative.
    public func validate() throws {
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

    /// Returns whether `entity` passes every filter.
    public func matches(_ entity: Entity) -> Bool {
        predicates.allSatisfy { $0(entity) }
    }

    /// Applies the query to `entities`, taken to be in stored order.
    ///
    /// - Throws: ``RepositoryError/Code/rejected`` when the offset or the limit is negative.
    /// - Complexity: O(*n* log *n*) when the query sorts, O(*n*) otherwise.
    public func apply(to entities: some Sequence<Entity>) throws -> [Entity] {
        try validate()
        var result = predicates.isEmpty ? Array(entities) : entities.filter(matches)
        if !sortKeys.isEmpty {
            result = stableSorted(result)
        }
        let start = min(offset, result.count)
        let end = limit.map { start + min($0, result.count - start) } ?? result.count
        if start == 0 && end == result.count { return result }
        return Array(result[start..<end])
    }

    private func stableSorted(_ entities: [Entity]) -> [Entity] {
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
    func order(_ lhs: Entity, _ rhs: Entity) -> ComparisonResult {
        for key in sortKeys {
            let result = key.compare(lhs, rhs)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }
}
