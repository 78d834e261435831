import Repositories

extension RepositoryConformance {
    func checkQueries(_ catalog: EntityCatalog<Entity>, into report: inout ConformanceReport) async {
        await verify(.queryMatchesReference, catalog, into: &report) { probe in
            let stored = try await storeQueryFixture(probe, catalog)
            try await expectAnswers(to: Self.referenceQueries(catalog), over: stored, from: probe, catalog)
        }
        await verify(.negativeQueryBoundsAreRejected, catalog, into: &report) { probe in
            try await probe.save(1)
            let index: @Sendable (Entity) -> Int = { catalog.index(of: $0.id) ?? -1 }
            let invalid: [(String, Query<Entity>)] = [
                ("Query().offset(-1)", Query().offset(-1)),
                ("Query().limit(-1)", Query().limit(-1)),
                (
                    "Query().sorted(by: index).offset(-3).limit(2)",
                    Query().sorted(by: SortKey(by: index)).offset(-3).limit(2)
                ),
            ]
            for (name, query) in invalid {
                do {
                    let answer = try await probe.fetch(query, named: name)
                    throw LawBroken(
                        "fetch(\(name)) returned \(catalog.describe(answer)) instead of throwing rejected")
                } catch let error as RepositoryError {
                    try probe.expect(
                        error.code == .rejected, "fetch(\(name)) threw \(error.code), expected rejected")
                }
            }
        }
    }

    /// Queries over the suite's indexes, each flagged with whether its answer is fixed
    /// without relying on stored order (sorted on a unique key, or unpaged).
    static func referenceQueries(
        _ catalog: EntityCatalog<Entity>
    ) -> [(name: String, query: Query<Entity>, isDetermined: Bool)] {
        let index: @Sendable (Entity) -> Int = { catalog.index(of: $0.id) ?? -1 }
        return [
            ("Query()", Query(), true),
            ("Query(where: index is even)", Query(where: { index($0) % 2 == 0 }), true),
            (
                "Query(where: index > 30 && index is odd)",
                Query().filter { index($0) > 30 }.filter { index($0) % 2 == 1 }, true
            ),
            (
                "Query(sortedBy: [index % 7 ascending, index descending])",
                Query(sortedBy: [SortKey(by: { index($0) % 7 }), SortKey(.descending, by: index)]), true
            ),
            (
                "Query(sortedBy: [index % 3 descending]) (ties keep stored order)",
                Query(sortedBy: [SortKey(.descending) { index($0) % 3 }]), false
            ),
            (
                "Query(where: even, sortedBy: [index descending], offset: 3, limit: 5)",
                Query(
                    where: { index($0) % 2 == 0 }, sortedBy: [SortKey(.descending, by: index)], offset: 3,
                    limit: 5), true
            ),
            ("Query(sortedBy: [index]).offset(100)", Query(sortedBy: [SortKey(by: index)]).offset(100), true),
            ("Query(sortedBy: [index]).limit(0)", Query(sortedBy: [SortKey(by: index)]).limit(0), true),
            ("Query().offset(5).limit(10) (stored order)", Query().offset(5).limit(10), false),
            ("Query(where: index < 0)", Query(where: { index($0) < 0 }), true),
        ]
    }
}

extension Query {
    var isSorted: Bool { !sortKeys.isEmpty }
}
