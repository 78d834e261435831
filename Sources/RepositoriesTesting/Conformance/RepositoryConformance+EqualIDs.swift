import Repositories

extension RepositoryConformance {
    /// The entity of one index under two spellings of its ID: the author's
    /// ``ConformanceOptions/makeEntityWithRespelledID``, else the suite's own.
    ///
    /// - Throws: ``LawBroken`` when the author's closure gives IDs that are not `==` or are
    ///   spelled alike.
    func respelledIDs() throws -> Result<RespelledIDs<Entity>, RespelledIDs<Entity>.Unavailable> {
        if let respell = options.makeEntityWithRespelledID {
            return .success(try RespelledIDs(index: 1, makeEntity: makeEntity, respell: respell))
        }
        return RespelledIDs.builtIn(indexes: 1..<64, makeEntity: makeEntity)
    }

    func checkEqualIDs(_ catalog: EntityCatalog<Entity>, into report: inout ConformanceReport) async {
        let pair: RespelledIDs<Entity>
        do {
            switch try respelledIDs() {
            case .success(let found): pair = found
            case .failure(let unavailable):
                skip(.equalIDsAreOneEntity, unavailable.reason, into: &report)
                return
            }
        } catch {
            // evaluate(_:) turns a broken closure into a ConformanceSetupError before any area
            // runs; should one get here all the same, it is a failure, never a pass.
            let message = (error as? LawBroken)?.message ?? "\(error)"
            report.violations.append(
                ConformanceViolation(law: .equalIDsAreOneEntity, message: message, operations: [], seed: nil))
            return
        }
        await verify(.equalIDsAreOneEntity, catalog, into: &report) { probe in
            probe.note(pair.described)
            let neighbour = probe.entity(pair.index + 1)
            try await probe.save(pair.entity(0, spelling: 0))
            try await probe.save(neighbour)
            try await probe.save(pair.entity(1, spelling: 1))
            try await probe.expectAll(
                [pair.entity(1, spelling: 1), neighbour],
                "after saving #\(pair.index) under one spelling of its ID, then #\(pair.index + 1), then #\(pair.index) under the other (one entity, in its first place)"
            )
            let count = try await probe.count()
            try probe.expect(count == 2, "count() returned \(count), expected 2")
            for spelling in 0..<2 {
                let fetched = try await probe.fetch(id: pair.id(spelling: spelling))
                try probe.expect(
                    fetched == pair.entity(1, spelling: 1),
                    "fetch(id:) under spelling \(spelling + 1) returned \(catalog.describe(fetched)), expected the revision saved last, \(catalog.describe(pair.entity(1, spelling: 1)))"
                )
            }
            let both = try await probe.fetch(ids: [pair.id(spelling: 0), pair.id(spelling: 1)])
            try probe.expect(
                both == [pair.entity(1, spelling: 1)],
                "fetch(ids:) under both spellings returned \(catalog.describe(both)), expected one entity")

            try await probe.delete(id: pair.id(spelling: 0))
            try await probe.expectAll([neighbour], "after deleting under the spelling not saved last")
            let deleted = try await probe.fetch(id: pair.id(spelling: 1))
            try probe.expect(
                deleted == nil,
                "fetch(id:) under the other spelling after delete returned \(catalog.describe(deleted))")

            try await probe.save(contentsOf: [pair.entity(2, spelling: 1), pair.entity(3, spelling: 0)])
            try await probe.expectAll(
                [neighbour, pair.entity(3, spelling: 0)],
                "after a batch holding both spellings (the later wins)")
            try await probe.delete(ids: [pair.id(spelling: 1)])
            try await probe.expectAll([neighbour], "after delete(ids:) under the spelling not saved last")
        }
    }
}
