import Repositories

extension RepositoryConformance {
    func checkBasics(_ catalog: EntityCatalog<Entity>, into report: inout ConformanceReport) async {
        await verify(.saveIsVisible, catalog, into: &report) { probe in
            for index in [1, 7, 2] {
                try await probe.save(index)
                let fetched = try await probe.fetch(index)
                try probe.expect(
                    fetched == probe.entity(index),
                    "fetch(id:) right after save returned \(catalog.describe(fetched)), expected \(catalog.describe(probe.entity(index)))"
                )
            }
        }
        await verify(.saveReplaces, catalog, into: &report) { probe in
            try await probe.save(3, 0)
            try await probe.save(3, 1)
            let fetched = try await probe.fetch(3)
            try probe.expect(
                fetched == probe.entity(3, 1),
                "fetch(id:) after saving revision 1 over revision 0 returned \(catalog.describe(fetched))")
            try await probe.expectAll([probe.entity(3, 1)])
        }
        await verify(.saveIsIdempotent, catalog, into: &report) { probe in
            try await probe.save(4, 2)
            try await probe.save(4, 2)
            try await probe.expectAll([probe.entity(4, 2)], "after saving one entity twice")
            let count = try await probe.count()
            try probe.expect(
                count == 1, "count() after saving one entity twice returned \(count), expected 1")
        }
        await verify(.fetchOfAbsentIDIsNil, catalog, into: &report) { probe in
            let fromEmpty = try await probe.fetch(5)
            try probe.expect(
                fromEmpty == nil, "fetch(id:) on an empty repository returned \(catalog.describe(fromEmpty))")
            try await probe.save(1)
            let absent = try await probe.fetch(2)
            try probe.expect(
                absent == nil, "fetch(id:) of an ID never saved returned \(catalog.describe(absent))")
        }
        await verify(.deleteRemoves, catalog, into: &report) { probe in
            for index in 1...3 { try await probe.save(index) }
            try await probe.delete(2)
            let deleted = try await probe.fetch(2)
            try probe.expect(deleted == nil, "fetch(id:) after delete returned \(catalog.describe(deleted))")
            try await probe.expectAll(probe.entities([1, 3]), "after deleting #2")
        }
        await verify(.deleteOfAbsentIDSucceeds, catalog, into: &report) { probe in
            try await probe.delete(9)
            try await probe.save(1)
            try await probe.delete(9)
            try await probe.delete(1)
            try await probe.delete(1)
            try await probe.delete(ids: [catalog.id(8), catalog.id(9)])
            try await probe.expectAll([], "after deleting absent IDs")
        }
        await verify(.deleteAllEmpties, catalog, into: &report) { probe in
            try await probe.deleteAll()
            for index in 0..<5 { try await probe.save(index) }
            try await probe.deleteAll()
            try await probe.expectAll([], "after deleteAll()")
            let count = try await probe.count()
            try probe.expect(count == 0, "count() after deleteAll() returned \(count)")
            let fetched = try await probe.fetch(2)
            try probe.expect(
                fetched == nil, "fetch(id:) after deleteAll() returned \(catalog.describe(fetched))")
            try await probe.save(2, 1)
            try await probe.expectAll([probe.entity(2, 1)], "after saving into an emptied repository")
        }
        await verify(.requireThrowsNotFound, catalog, into: &report) { probe in
            try await probe.save(1)
            let present = try await probe.require(id: catalog.id(1))
            try probe.expect(
                present == probe.entity(1),
                "require(id:) of a stored ID returned \(catalog.describe(present))")
            do {
                let absent = try await probe.require(id: catalog.id(2))
                throw LawBroken(
                    "require(id:) of an absent ID returned \(catalog.describe(absent)) instead of throwing")
            } catch let error as RepositoryError {
                try probe.expect(
                    error.code == .notFound,
                    "require(id:) of an absent ID threw \(error.code), expected notFound")
            }
        }
        await verify(.countMatchesFetchAll, catalog, into: &report) { probe in
            try await expectCountMatches(probe)
            try await probe.save(contentsOf: probe.entities([1, 2, 3]))
            try await expectCountMatches(probe)
            try await probe.save(2, 1)
            try await expectCountMatches(probe)
            try await probe.delete(1)
            try await expectCountMatches(probe)
            try await probe.delete(ids: [catalog.id(2), catalog.id(3)])
            try await expectCountMatches(probe)
        }
        await verify(.fetchIDsMatchesFetch, catalog, into: &report) { probe in
            for index in 1...5 { try await probe.save(index) }
            let ids = [4, 9, 2, 4, 1].map(catalog.id)
            let fetched = try await probe.fetch(ids: ids)
            // fetch(ids:) orders by the IDs asked for, which holds whatever the store's own order.
            let expected = probe.entities([4, 2, 1])
            try probe.expect(
                fetched == expected,
                "fetch(ids:) returned \(catalog.describe(fetched)), expected \(catalog.describe(expected))")
            let none = try await probe.fetch(ids: [])
            try probe.expect(none.isEmpty, "fetch(ids: []) returned \(catalog.describe(none))")
        }
        await verify(.deleteIDsRemovesOnlyThose, catalog, into: &report) { probe in
            for index in 1...6 { try await probe.save(index) }
            try await probe.delete(ids: [2, 9, 4, 2].map(catalog.id))
            try await probe.expectAll(probe.entities([1, 3, 5, 6]), "after delete(ids: [#2, #9, #4, #2])")
            try await probe.delete(ids: [])
            try await probe.expectAll(probe.entities([1, 3, 5, 6]), "after delete(ids: [])")
            try await probe.delete(ids: [6, 5].map(catalog.id))
            try await probe.expectAll(probe.entities([1, 3]), "after delete(ids: [#6, #5])")
        }
        await checkEqualIDs(catalog, into: &report)
    }

    func expectCountMatches(_ probe: Probe<Repo>) async throws {
        let all = try await probe.fetchAll()
        let count = try await probe.count()
        try probe.expect(
            count == all.count, "count() returned \(count) while fetchAll() returned \(all.count) entities")
    }
}
