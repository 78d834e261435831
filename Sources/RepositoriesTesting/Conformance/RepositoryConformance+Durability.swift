import Repositories

extension RepositoryConformance {
    func checkDurability(_ catalog: EntityCatalog<Entity>, into report: inout ConformanceReport) async {
        guard let reopen = options.reopen else {
            skip(
                .survivesReopen,
                "no ConformanceOptions.reopen was given; stores that persist should pass one", into: &report)
            return
        }
        await verify(.survivesReopen, catalog, into: &report) { probe in
            let reference = InMemoryRepository<Entity>()
            // Single saves, a batch, replacements, deletes: each kind of record.
            for index in [3, 1, 2] {
                try await probe.save(index)
                try await reference.save(probe.entity(index))
            }
            let batch = probe.entities(Array(4..<12)) + [probe.entity(7, 1)]
            try await probe.save(contentsOf: batch)
            try await reference.save(contentsOf: batch)
            try await probe.save(1, 2)
            try await reference.save(probe.entity(1, 2))
            try await probe.delete(2)
            try await reference.delete(id: catalog.id(2))
            try await probe.delete(ids: [5, 6].map(catalog.id))
            try await reference.delete(ids: [5, 6].map(catalog.id))
            try await probe.reopen(with: reopen)
            try await probe.expectAll(try await reference.fetchAll(), "after close and reopen")
            let count = try await probe.count()
            let expectedCount = try await reference.count()
            try probe.expect(
                count == expectedCount, "count() after reopen returned \(count), expected \(expectedCount)")
            let one = try await probe.fetch(7)
            try probe.expect(
                one == probe.entity(7, 1), "fetch(id: #7) after reopen returned \(catalog.describe(one))")

            // Writes after a reopen land too, and a reopen right after another changes nothing.
            try await probe.save(2, 3)
            try await reference.save(probe.entity(2, 3))
            try await probe.reopen(with: reopen)
            try await probe.reopen(with: reopen)
            try await probe.expectAll(try await reference.fetchAll(), "after writing, then reopening twice")

            // deleteAll is durable, and so is what follows it.
            try await probe.deleteAll()
            try await probe.save(contentsOf: probe.entities([9, 8]))
            try await probe.reopen(with: reopen)
            try await probe.expectAll(probe.entities([9, 8]), "after deleteAll(), a batch and a reopen")
        }
    }
}
