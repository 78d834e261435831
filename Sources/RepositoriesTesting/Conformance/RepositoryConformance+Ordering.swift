import Repositories

extension RepositoryConformance {
    func checkOrdering(_ catalog: EntityCatalog<Entity>, into report: inout ConformanceReport) async {
        if !skipUnless(.insertionOrder, .fetchAllKeepsInsertionOrder, into: &report) {
            await verify(.fetchAllKeepsInsertionOrder, catalog, into: &report) { probe in
                for index in [5, 1, 4, 2, 3] { try await probe.save(index) }
                try await probe.save(contentsOf: probe.entities([9, 7, 8]))
                try await probe.expectAll(
                    probe.entities([5, 1, 4, 2, 3, 9, 7, 8]), "(the order of first insertion)")
            }
        }
        if !skipUnless(.insertionOrder, .replacedEntityKeepsItsPlace, into: &report) {
            await verify(.replacedEntityKeepsItsPlace, catalog, into: &report) { probe in
                for index in 1...3 { try await probe.save(index) }
                try await probe.save(2, 1)
                try await probe.expectAll(
                    [probe.entity(1), probe.entity(2, 1), probe.entity(3)],
                    "after replacing #2 (it keeps its place)")
                try await probe.save(contentsOf: [probe.entity(3, 1), probe.entity(1, 1)])
                try await probe.expectAll(
                    probe.entities([1, 2, 3], revision: 1),
                    "after replacing #3 and #1 in a batch (they keep their places)")
            }
        }
        if !skipUnless(.insertionOrder, .reinsertedEntityMovesToEnd, into: &report) {
            await verify(.reinsertedEntityMovesToEnd, catalog, into: &report) { probe in
                for index in 1...3 { try await probe.save(index) }
                try await probe.delete(1)
                try await probe.save(1)
                try await probe.expectAll(probe.entities([2, 3, 1]), "after deleting and saving #1 again")
                try await probe.deleteAll()
                try await probe.save(3)
                try await probe.save(2)
                try await probe.expectAll(probe.entities([3, 2]), "after deleteAll() and two saves")
            }
        }
    }
}
