import Foundation
import Repositories
import RepositoriesPostgres
import RepositoriesSQLite
import RepositoriesTestSupport

/// Version 1 of ``BenchmarkEntity``: `name` was called `title`. What the migration figure's
/// store holds before it is opened at version 2.
struct BenchmarkEntityV1: Codable, Identifiable, Sendable {
    var id: Int
    var title: String
    var price: Double
    var tags: [String]
    var updatedAt: Date

    static func make(_ id: Int) -> BenchmarkEntityV1 {
        let current = BenchmarkEntity.make(id)
        return BenchmarkEntityV1(
            id: id, title: current.name, price: current.price, tags: current.tags,
            updatedAt: current.updatedAt)
    }
}

extension BenchmarkRun {
    /// Figure 10: opening a store whose every record was written by version 1 of the entity,
    /// against opening the same entities already at version 2: a `FileRepository` (upgrade,
    /// rewrite at version 2 to a temporary file, fsync, rename) and a `SQLiteRepository`
    /// (upgrade, every row rewritten and the table stamped in one transaction).
    func migrationFigures() async throws -> [Figure] {
        let migrations = try Migrations<BenchmarkEntity>(
            .upgrade(from: 1) { (old: BenchmarkEntityV1) in
                BenchmarkEntity(
                    id: old.id, name: old.title, price: old.price, tags: old.tags, updatedAt: old.updatedAt)
            })
        return [
            try await fileMigrationFigure(migrations),
            try await sqliteMigrationFigure(migrations),
        ] + (try await postgresMigrationFigure(migrations))
    }

    private func fileMigrationFigure(_ migrations: Migrations<BenchmarkEntity>) async throws -> Figure {
        let pristine = file("v1")
        let old = try await FileRepository<BenchmarkEntityV1>(fileURL: pristine)
        try await old.save(contentsOf: (0..<batchSize).map { BenchmarkEntityV1.make($0) })
        try await old.close()
        // A fresh version 1 file for every run, copied before the clock starts.
        let copies = try (0..<repetitions).map { run in
            let copy = file("v1-copy-\(run)")
            try FileManager.default.copyItem(at: pristine, to: copy)
            return copy
        }
        let current = file("v2")
        let written = try await FileRepository<BenchmarkEntity>(fileURL: current, migrations: migrations)
        try await written.save(contentsOf: (0..<batchSize).map { BenchmarkEntity.make($0) })
        try await written.close()

        var run = 0
        let (migrating, plain) = try await Measurement.interleaved(repetitions: repetitions) {
            let store = try await FileRepository<BenchmarkEntity>(
                fileURL: copies[run], migrations: migrations)
            run += 1
            guard store.upgradedRecordCount == batchSize else { throw MigrationDidNotRun() }
            try await store.close()
            return 1
        } _: {
            let store = try await FileRepository<BenchmarkEntity>(fileURL: current, migrations: migrations)
            try await store.close()
            return 1
        }
        let label = "\(batchSize / 1_000)k"
        return .cost(
            10, "FileRepository open of \(label) that needs a migration (upgrade, rewrite, fsync)",
            measured: migrating, baseline: plain, baselineName: "the same open at the current version",
            target: nil, note: "once per app update: the next open costs the baseline")
    }

    /// The SQLite row of figure 10: a table of version 1 rows opened at version 2, each run on
    /// a fresh copy of the database made before the clock starts, against opening the same
    /// rows already at version 2. Both open and close (the close checkpoints the log).
    private func sqliteMigrationFigure(_ migrations: Migrations<BenchmarkEntity>) async throws -> Figure {
        // One table name for both versions: by default it follows the entity's type.
        let options = SQLiteOptions(tableName: "entities")
        let pristine = file("v1.sqlite")
        let old = try await SQLiteRepository<BenchmarkEntityV1>(fileURL: pristine, options: options)
        try await old.save(contentsOf: (0..<batchSize).map { BenchmarkEntityV1.make($0) })
        try await old.close()
        let copies = try (0..<repetitions).map { run in
            let copy = file("v1-copy-\(run).sqlite")
            try FileManager.default.copyItem(at: pristine, to: copy)
            return copy
        }
        let current = file("v2.sqlite")
        let written = try await SQLiteRepository<BenchmarkEntity>(
            fileURL: current, options: options, migrations: migrations)
        try await written.save(contentsOf: (0..<batchSize).map { BenchmarkEntity.make($0) })
        try await written.close()

        var run = 0
        let (migrating, plain) = try await Measurement.interleaved(repetitions: repetitions) {
            let store = try await SQLiteRepository<BenchmarkEntity>(
                fileURL: copies[run], options: options, migrations: migrations)
            run += 1
            guard store.upgradedRowCount == batchSize else { throw MigrationDidNotRun() }
            try await store.close()
            return 1
        } _: {
            let store = try await SQLiteRepository<BenchmarkEntity>(
                fileURL: current, options: options, migrations: migrations)
            guard store.upgradedRowCount == 0 else { throw MigrationDidNotRun() }
            try await store.close()
            return 1
        }
        let label = "\(batchSize / 1_000)k"
        return .cost(
            10,
            "SQLiteRepository open of \(label) that needs a migration (upgrade, rewrite, one transaction)",
            measured: migrating, baseline: plain, baselineName: "the same open at the current version",
            target: nil, note: "once per app update: the next open costs the baseline")
    }

    /// The PostgreSQL row of figure 10: a table of version 1 rows opened at version 2 (every
    /// row upgraded and written back in one transaction), each run on a fresh copy of the
    /// table and its change log made with SQL before the clock starts, against opening the same
    /// rows already at version 2. Skipped, saying why, without PostgreSQL binaries.
    private func postgresMigrationFigure(_ migrations: Migrations<BenchmarkEntity>) async throws -> [Figure] {
        let server: PostgresTestServer
        do {
            server = try await PostgresTestServer.start(durable: true)
        } catch {
            FileHandle.standardError.write(Data("skipping the PostgreSQL migration figure: \(error)\n".utf8))
            return []
        }
        defer { server.stop() }
        let count = batchSize / 10
        let old = try await PostgresRepository<BenchmarkEntityV1>(
            connectionString: server.connectionString, options: PostgresOptions(tableName: "v1"))
        try await old.save(contentsOf: (0..<count).map { BenchmarkEntityV1.make($0) })
        await old.close()
        for run in 0..<repetitions {
            var copy = ""
            for suffix in ["", "_log", "_feed"] {
                copy += """
                    CREATE TABLE "copy\(run)\(suffix)" (LIKE "v1\(suffix)" INCLUDING ALL);
                    INSERT INTO "copy\(run)\(suffix)" OVERRIDING SYSTEM VALUE SELECT * FROM "v1\(suffix)";

                    """
            }
            try await server.psql(copy)
        }
        let current = try await PostgresRepository<BenchmarkEntity>(
            connectionString: server.connectionString, options: PostgresOptions(tableName: "v2"),
            migrations: migrations)
        try await current.save(contentsOf: (0..<count).map { BenchmarkEntity.make($0) })
        await current.close()

        var run = 0
        let (migrating, plain) = try await Measurement.interleaved(repetitions: repetitions) {
            let store = try await PostgresRepository<BenchmarkEntity>(
                connectionString: server.connectionString, options: PostgresOptions(tableName: "copy\(run)"),
                migrations: migrations)
            run += 1
            guard store.upgradedRowCount == count else { throw MigrationDidNotRun() }
            await store.close()
            return 1
        } _: {
            let store = try await PostgresRepository<BenchmarkEntity>(
                connectionString: server.connectionString, options: PostgresOptions(tableName: "v2"),
                migrations: migrations)
            guard store.upgradedRowCount == 0 else { throw MigrationDidNotRun() }
            await store.close()
            return 1
        }
        return [
            .cost(
                10,
                "PostgresRepository open of \(count / 1_000)k rows that needs a migration (upgrade, rewrite, one transaction)",
                measured: migrating, baseline: plain, baselineName: "the same open at the current version",
                target: nil, note: "once per deploy of a new entity version; fsync on")
        ]
    }

    /// The migrating open found nothing to upgrade, or the plain one found something: the
    /// figure would measure the wrong thing.
    struct MigrationDidNotRun: Error {}
}
