import Repositories

extension RepositoryConformance {
    func checkMigrations(into report: inout ConformanceReport) async {
        guard let makeLocation = options.makeMigrationStoreLocation else {
            for law in ConformanceArea.migrations.laws {
                skip(
                    law,
                    "no ConformanceOptions.makeMigrationStoreLocation was given; stores that take migrations: should pass one",
                    into: &report)
            }
            return
        }
        let laws: [(ConformanceLaw, (MigrationSession) async throws -> Void)] = [
            (.upgradesFollowTheChain, Self.upgradesFollowTheChain),
            (.upgradeRunsOnce, Self.upgradeRunsOnce),
            (.writesAfterUpgradeSurviveReopen, Self.writesAfterUpgradeSurviveReopen),
            (.newerDataIsRefusedAndKept, Self.newerDataIsRefusedAndKept),
            (.dataWrittenBeforeMigrationsReadsUnchanged, Self.dataWrittenBeforeMigrationsReadsUnchanged),
        ]
        for (law, body) in laws {
            let session = MigrationSession(
                ordered: options.supports(.insertionOrder), makeLocation: makeLocation)
            do {
                try await body(session)
                report.passed.append(law)
            } catch let broken as LawBroken {
                report.violations.append(
                    ConformanceViolation(law: law, message: broken.message, operations: session.operations))
            } catch {
                report.violations.append(
                    ConformanceViolation(
                        law: law, message: "an operation threw \(error)", operations: session.operations))
            }
            report.notes += await session.removeLocations()
        }
    }

    // MARK: Laws

    private static func upgradesFollowTheChain(_ session: MigrationSession) async throws {
        let chains = session.chains
        let fromOne = try await session.newLocation()
        let writtenAtOne = try await session.withStore(at: fromOne, chains.version1, writeHistory)
        let expected = writtenAtOne.map(upgradedTwice)
        try await session.withStore(at: fromOne, try chains.version3()) { store in
            try session.expectSame(
                try await store.fetchAll(), expected, "at version 3 over data of version 1")
            let count = try await store.count()
            try session.expect(
                count == expected.count, "count() at version 3 returned \(count), expected \(expected.count)")
            let first = try await store.fetch(id: expected[0].id)
            try session.expect(
                first == expected[0],
                "fetch(id: #\(expected[0].id)) at version 3 returned \(first.map { "\($0)" } ?? "nil"), expected \(expected[0])"
            )
        }

        let fromTwo = try await session.newLocation()
        let writtenAtTwo = try await session.withStore(at: fromTwo, try chains.version2(), writeHistory)
        chains.reset()
        try await session.withStore(at: fromTwo, try chains.version3()) { store in
            try session.expectSame(
                try await store.fetchAll(), writtenAtTwo.map(ConformanceEntityV3.init(upgrading:)),
                "at version 3 over data of version 2")
        }
        let wrongStart = chains.upgrades(from: 1)
        try session.expect(
            wrongStart == 0,
            "the upgrade from version 1 ran \(wrongStart) times over data version 2 wrote; each entity's upgrades must start at the version that wrote it"
        )
    }

    private static func upgradeRunsOnce(_ session: MigrationSession) async throws {
        let chains = session.chains
        let location = try await session.newLocation()
        let expected = try await session.withStore(at: location, chains.version1, writeHistory).map(
            upgradedTwice)
        try await session.withStore(at: location, try chains.version3()) { store in
            try session.expectSame(
                try await store.fetchAll(), expected, "at version 3 over data of version 1")
        }
        chains.reset()
        try await session.withStore(at: location, try chains.version3()) { store in
            try session.expectSame(
                try await store.fetchAll(), expected, "when opened at version 3 a second time")
        }
        let again = chains.allUpgrades
        try session.expect(
            again == 0,
            "opening the upgraded data a second time ran upgrades \(again) times (from version 1: \(chains.upgrades(from: 1)), from version 2: \(chains.upgrades(from: 2))); the first open must make its upgrade durable, so later ones run none"
        )
    }

    private static func writesAfterUpgradeSurviveReopen(_ session: MigrationSession) async throws {
        let chains = session.chains
        let location = try await session.newLocation()
        let upgraded = try await session.withStore(at: location, chains.version1, writeHistory).map(
            upgradedTwice)
        let reference = InMemoryRepository<ConformanceEntityV3>(upgraded)
        try await session.withStore(at: location, try chains.version3()) { store in
            try session.expectSame(
                try await store.fetchAll(), upgraded, "at version 3 over data of version 1")
            // A replacement of an upgraded entity, a new one, a delete, and a batch of both kinds.
            let writes: [[ConformanceEntityV3]] = [
                [.make(index: 3, revision: 5)], [.make(index: 40, revision: 0)],
                [.make(index: 41, revision: 0), .make(index: 1, revision: 6)],
            ]
            for batch in writes {
                if batch.count == 1 {
                    try await store.save(batch[0])
                } else {
                    try await store.save(contentsOf: batch)
                }
                try await reference.save(contentsOf: batch)
            }
            try await store.delete(id: 4)
            try await reference.delete(id: 4)
        }
        let expected = try await reference.fetchAll()
        for reopening in ["after writing at version 3 and reopening", "after reopening a second time"] {
            try await session.withStore(at: location, try chains.version3()) { store in
                try session.expectSame(try await store.fetchAll(), expected, reopening)
            }
        }
    }

    private static func newerDataIsRefusedAndKept(_ session: MigrationSession) async throws {
        let chains = session.chains
        let location = try await session.newLocation()
        let written = try await session.withStore(at: location, try chains.version3(), writeHistory)
        try await expectRefused(at: location, try chains.version2(), session)
        try await expectRefused(at: location, chains.version1, session)
        try await session.withStore(at: location, try chains.version3()) { store in
            try session.expectSame(
                try await store.fetchAll(), written, "at version 3 after versions 2 and 1 were refused")
        }
    }

    private static func dataWrittenBeforeMigrationsReadsUnchanged(_ session: MigrationSession) async throws {
        let chains = session.chains
        let location = try await session.newLocation()
        let written = try await session.withStore(
            at: location, chains.version1, withoutMigrations: true, writeHistory)
        let reference = InMemoryRepository<ConformanceEntityV1>(written)
        try await session.withStore(at: location, chains.version1) { store in
            try session.expectSame(
                try await store.fetchAll(), written, "with Migrations() over data written without migrations")
            let writes: [ConformanceEntityV1] = [.make(index: 40, revision: 0), .make(index: 3, revision: 4)]
            try await store.save(contentsOf: writes)
            try await reference.save(contentsOf: writes)
        }
        let expected = try await reference.fetchAll()
        try await session.withStore(at: location, chains.version1, withoutMigrations: true) { store in
            try session.expectSame(
                try await store.fetchAll(), expected, "without migrations over data written with Migrations()"
            )
        }
    }

    // MARK: Steps

    private static func upgradedTwice(_ entity: ConformanceEntityV1) -> ConformanceEntityV3 {
        ConformanceEntityV3(upgrading: ConformanceEntityV2(upgrading: entity))
    }

    /// Writes single saves, a batch that repeats an ID, a replacement and deletes, so a store
    /// that keeps a journal holds every kind of record; returns what `fetchAll()` must then
    /// return, in order.
    private static func writeHistory<Entity: VersionedConformanceEntity>(
        _ store: TracedStore<Entity>
    ) async throws -> [Entity] {
        let reference = InMemoryRepository<Entity>()
        for index in [3, 1, 2] {
            try await store.save(.make(index: index, revision: 0))
            try await reference.save(.make(index: index, revision: 0))
        }
        let batch = (4..<12).map { Entity.make(index: $0, revision: 0) } + [.make(index: 7, revision: 1)]
        try await store.save(contentsOf: batch)
        try await reference.save(contentsOf: batch)
        try await store.save(.make(index: 1, revision: 2))
        try await reference.save(.make(index: 1, revision: 2))
        try await store.delete(id: 2)
        try await reference.delete(id: 2)
        try await store.delete(ids: [5, 6])
        try await reference.delete(ids: [5, 6])
        return try await reference.fetchAll()
    }

    /// Opens data version 3 wrote with the older `migrations`: opening must throw
    /// `writtenByNewerVersion`, or, for a store that reads lazily, its first read and every
    /// write must.
    private static func expectRefused<Entity: VersionedConformanceEntity>(
        at location: any MigrationStoreLocation, _ migrations: Migrations<Entity>, _ session: MigrationSession
    ) async throws {
        let version = migrations.currentVersion
        let opened: OpenedStore<Entity>
        do {
            opened = try await location.open(migrations: migrations)
        } catch {
            session.note("open at version \(version) (\(Entity.self)) → threw \(error)")
            try expectNewerVersionError(error, "opening data of version 3 at version \(version)")
            return
        }
        session.note("open at version \(version) (\(Entity.self))")
        let store = TracedStore(opened.repository, session: session)
        do {
            try await expectThrowsNewerVersion("fetchAll() at version \(version) over data of version 3") {
                _ = try await store.fetchAll()
            }
            try await expectThrowsNewerVersion("save(_:) at version \(version) over data of version 3") {
                try await store.save(.make(index: 50, revision: 0))
            }
            try await expectThrowsNewerVersion("deleteAll() at version \(version) over data of version 3") {
                try await store.deleteAll()
            }
        } catch {
            await session.close(opened)
            throw error
        }
        try await opened.close()
        session.note("close")
    }

    private static func expectThrowsNewerVersion(_ what: String, _ body: () async throws -> Void) async throws
    {
        do {
            try await body()
        } catch {
            try expectNewerVersionError(error, what)
            return
        }
        throw LawBroken(
            "\(what) succeeded; a store must refuse data a newer version wrote (RepositoryError writtenByNewerVersion), at open or at every read and write, so a downgrade never changes it"
        )
    }

    private static func expectNewerVersionError(_ error: any Error, _ what: String) throws {
        guard (error as? RepositoryError)?.code == .writtenByNewerVersion else {
            throw LawBroken("\(what) threw \(error), expected RepositoryError writtenByNewerVersion")
        }
    }
}
