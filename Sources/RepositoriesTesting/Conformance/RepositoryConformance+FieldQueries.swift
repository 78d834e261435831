import Foundation
import Repositories

extension RepositoryConformance {
    /// Checks ``ConformanceLaw/queryCountMatchesFetch`` and
    /// ``ConformanceLaw/declaredFieldQueriesMatchReference``.
    func checkFieldQueries(_ catalog: EntityCatalog<Entity>, into report: inout ConformanceReport) async {
        await verify(.queryCountMatchesFetch, catalog, into: &report) { probe in
            let stored = try await storeQueryFixture(probe, catalog, first: 8)
            // Every reference query, and every fourth field query: enough to catch a count that
            // ignores a condition, the paging or a filter, at a quarter of the round trips.
            var queries = Self.referenceQueries(catalog).map { ($0.0, $0.1) }
            let fieldQueries = Self.fieldQueries(over: stored)
            queries += stride(from: 0, to: fieldQueries.count, by: 4).map {
                (fieldQueries[$0].name, fieldQueries[$0].query)
            }
            for (name, query) in queries {
                let fetched = try await probe.fetch(query, named: name)
                let counted = try await probe.count(query, named: name)
                try probe.expect(
                    counted == fetched.count,
                    "count(\(name)) returned \(counted), but fetch(\(name)) returned \(fetched.count) entities"
                )
            }
        }
        guard let fields = DeclaredFields.of(Entity.self), !fields.isEmpty else {
            skip(
                .declaredFieldQueriesMatchReference, "\(Entity.self) declares no fields (QueryableEntity)",
                into: &report)
            return
        }
        await verify(.declaredFieldQueriesMatchReference, catalog, into: &report) { probe in
            let stored = try await storeQueryFixture(probe, catalog, first: 8)
            try await expectAnswers(to: Self.fieldQueries(over: stored), over: stored, from: probe, catalog)
        }
    }

    /// Checks that `probe`'s store answers each of `queries` as `Query.apply(to:)` does over
    /// `stored`: in the same order where the store keeps insertion order or the query sorts,
    /// and only the queries whose answer is fixed otherwise.
    func expectAnswers(
        to queries: [(name: String, query: Query<Entity>, isDetermined: Bool)], over stored: [Entity],
        from probe: Probe<Repo>, _ catalog: EntityCatalog<Entity>
    ) async throws {
        let ordered = options.supports(.insertionOrder)
        for (name, query, isDetermined) in queries where ordered || isDetermined {
            let expected = try query.apply(to: stored)
            let actual = try await probe.fetch(query, named: name)
            let matches = ordered || query.isSorted ? actual == expected : probe.sameMembers(actual, expected)
            try probe.expect(
                matches,
                "fetch(\(name)) returned \(catalog.describe(actual)), expected \(catalog.describe(expected))")
        }
    }

    /// Saves the query laws' entities into `probe` in a scrambled order, with replacements
    /// and deletions, so stored order, index order and revision all differ, and returns what
    /// a reference holds after the same writes.
    ///
    /// - Parameter first: the first of the 40 indexes used. The field laws start at 8, past
    ///   ``ConformanceEntity``'s 128 KiB payload at index 7: they run a few hundred queries,
    ///   and a store that reads every entity for each would move it each time.
    func storeQueryFixture(
        _ probe: Probe<Repo>, _ catalog: EntityCatalog<Entity>, first: Int = 0
    ) async throws -> [Entity] {
        let reference = InMemoryRepository<Entity>()
        for step in 0..<40 {
            let index = first + (step * 17) % 40
            try await probe.save(index)
            try await reference.save(probe.entity(index))
        }
        for index in stride(from: first, to: first + 40, by: 5) {
            try await probe.save(index, 1)
            try await reference.save(probe.entity(index, 1))
        }
        for index in stride(from: first + 4, to: first + 40, by: 9) {
            try await probe.delete(index)
            try await reference.delete(id: catalog.id(index))
        }
        return try await reference.fetchAll()
    }

    /// Queries on every declared field, with values drawn from `stored`: each comparison
    /// against the smallest, a middle and the largest value and `nil`, membership, prefixes
    /// of text, combinations, and sorts with offsets and limits; each flagged with whether
    /// its answer is fixed without relying on stored order.
    static func fieldQueries(over stored: [Entity]) -> [(
        name: String, query: Query<Entity>, isDetermined: Bool
    )] {
        guard let fields = DeclaredFields.of(Entity.self), !fields.isEmpty else { return [] }
        var queries: [(name: String, query: Query<Entity>, isDetermined: Bool)] = []
        func add(_ name: String, _ query: Query<Entity>, determined: Bool = true) {
            queries.append((name, query, determined))
        }
        for (position, field) in fields.enumerated() {
            let operand = FieldOperand(field)
            let values = Set(stored.map { field.value($0) }).sorted()
            guard let smallest = values.first, let largest = values.last else { continue }
            let middle = values[values.count / 2]
            // Every operator against a middle value; at the ends, the operators whose answer
            // the end decides (none or all of the others); and `nil`, which sorts first.
            var probes: [(FieldComparison, FieldValue)] = [
                .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual,
            ].map { ($0, middle) }
            probes += [
                (.less, smallest), (.lessOrEqual, smallest), (.greaterOrEqual, largest), (.greater, largest),
            ]
            probes += [(.equal, .null), (.notEqual, .null), (.less, .null), (.greater, .null)]
            for (comparison, value) in probes {
                let condition = FieldCondition<Entity>(.compare(operand, comparison, value))
                add("where(\(condition))", Query().adding(condition))
            }
            let members = FieldCondition<Entity>(.oneOf(operand, [largest, .null, smallest, largest]))
            add("where(\(members))", Query().adding(members))
            let none = FieldCondition<Entity>(.oneOf(operand, []))
            add("where(\(none))", Query().adding(none))
            if case .text(let text) = middle {
                let scalars = text.unicodeScalars
                // The fixture's titles share a long start, so the longer prefixes are the ones
                // that pick entities out.
                for length in Set([0, 1, 3, 8, 9, 10, 11, scalars.count / 2, scalars.count]).sorted() {
                    var prefix = String.UnicodeScalarView()
                    prefix.append(contentsOf: scalars.prefix(length))
                    let condition = FieldCondition<Entity>(.prefix(operand, normalizing: String(prefix)))
                    add("where(\(condition))", Query().adding(condition))
                }
                // The decomposed spelling of a prefix that ends after a precomposed character
                // selects what its NFC spelling selects; one that ends before the character's
                // combining mark is no prefix of the NFC form.
                let decomposed = text.decomposedStringWithCanonicalMapping.unicodeScalars
                if let mark = decomposed.firstIndex(where: {
                    $0.properties.canonicalCombiningClass != .notReordered
                }) {
                    let through = String(String.UnicodeScalarView(decomposed[...mark]))
                    let before = String(String.UnicodeScalarView(decomposed[..<mark]))
                    for (label, prefix) in [
                        ("through a decomposed mark", through), ("before a decomposed mark", before),
                    ] {
                        let condition = FieldCondition<Entity>(.prefix(operand, normalizing: prefix))
                        add("where(\(condition)) (\(label))", Query().adding(condition))
                    }
                }
                let percent = FieldCondition<Entity>(.prefix(operand, normalizing: "%"))
                add("where(\(percent)) (no pattern)", Query().adding(percent))
            }
            let other = fields[(position + 1) % fields.count]
            let otherOperand = FieldOperand(other)
            let otherValues = Set(stored.map { other.value($0) }).sorted()
            let otherMiddle = otherValues[otherValues.count / 2]
            let combined = FieldCondition<Entity>(
                .or([
                    .and([
                        .compare(operand, .greaterOrEqual, middle),
                        .compare(otherOperand, .notEqual, otherMiddle),
                    ]),
                    .not(.compare(operand, .greater, smallest)),
                ]))
            add("where(\(combined))", Query().adding(combined))
            let ascending = Query<Entity>().sorted(by: SortKey(field, .ascending))
            let descending = Query<Entity>().sorted(by: SortKey(field, .descending))
            add("sorted(by: \(field.name)) (ties in stored order)", ascending, determined: false)
            add(
                "sorted(by: \(field.name), .descending) (ties in stored order)", descending, determined: false
            )
            add(
                "where(\(field.name) > \(smallest)).sorted(by: \(field.name), .descending).offset(2).limit(5)",
                descending.adding(FieldCondition(.compare(operand, .greater, smallest))).offset(2).limit(5),
                determined: false)
            add(
                "where(\(field.name) <= \(middle)).sorted(by: \(field.name)).limit(3)",
                ascending.adding(FieldCondition(.compare(operand, .lessOrEqual, middle))).limit(3),
                determined: false)
            add(
                "sorted(by: [\(field.name) descending, \(other.name)]).offset(3).limit(7)",
                descending.sorted(by: SortKey(other, .ascending)).offset(3).limit(7), determined: false)
            add(
                "where(\(other.name) != \(otherMiddle)).sorted(by: \(field.name)).limit(4)",
                ascending.adding(FieldCondition(.compare(otherOperand, .notEqual, otherMiddle))).limit(4),
                determined: false)
            let everyOther = stored.enumerated().filter { $0.offset % 2 == 0 }.map { "\($0.element.id)" }
            let kept = Set(everyOther)
            add(
                "where(\(field.name) >= \(middle)).filter(every other stored).sorted(by: \(field.name)).limit(6)",
                ascending.adding(FieldCondition(.compare(operand, .greaterOrEqual, middle)))
                    .filter { kept.contains("\($0.id)") }.limit(6),
                determined: false)
            add("sorted(by: \(field.name)).offset(1_000)", ascending.offset(1_000))
            add("sorted(by: \(field.name)).limit(0)", ascending.limit(0))
        }
        return queries
    }
}
