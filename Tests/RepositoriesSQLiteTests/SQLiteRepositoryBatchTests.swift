import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// ID lists longer than SQLite's parameter limit, run as chunked SQL.
@Suite struct SQLiteRepositoryBatchTests {
    /// A directory of its own for each test, removed with it.
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    /// 6,000 stored entities, IDs 0..<6,000, saved as one batch.
    private func makeStore(at url: URL) async throws -> SQLiteRepository<ConformanceEntity> {
        let store = try await SQLiteRepository<ConformanceEntity>(fileURL: url)
        try await store.save(contentsOf: (0..<6_000).map { .make(index: $0, revision: 0) })
        return store
    }

    @Test func fetchOfFiveThousandIDsAnswersInTheirOrderSkippingAbsentAndRepeated() async throws {
        let store = try await makeStore(at: scratch.file())
        var random = SeededRandomNumberGenerator(seed: 3)
        // 5,000 IDs: mostly stored, some absent (6,000 and up), some repeated.
        var ids = (0..<4_500).map { _ in Int.random(in: 0..<7_000, using: &random) }
        ids += ids.prefix(500)
        #expect(ids.count == 5_000)
        var seen = Set<Int>()
        let expected = ids.filter { $0 < 6_000 && seen.insert($0).inserted }
        let found = try await store.fetch(ids: ids)
        #expect(found.map(\.id) == expected)
        #expect(found.first == .make(index: expected[0], revision: 0))
        try await store.close()
    }

    @Test func deleteOfFiveThousandIDsRemovesExactlyThose() async throws {
        let store = try await makeStore(at: scratch.file())
        let doomed = Array(stride(from: 5_999, through: 0, by: -1).prefix(4_998)) + [9_999, 5_999]
        try await store.delete(ids: doomed)
        // 4,998 stored, one absent and one repeated: 5,000 IDs, IDs 0..<1,002 remain.
        #expect(doomed.count == 5_000)
        #expect(try await store.fetchAll().map(\.id) == Array(0..<1_002))
        #expect(try await store.count() == 1_002)
        try await store.close()
    }

    @Test func deleteAcrossManyChunksIsOneTransaction() async throws {
        let url = scratch.file()
        let store = try await makeStore(at: url)
        try RawDatabase(url).execute(
            """
            CREATE TRIGGER keep_4900 BEFORE DELETE ON "ConformanceEntity" WHEN OLD.id = 4900
            BEGIN SELECT RAISE(ABORT, '4900 must stay'); END
            """)
        // 4,900 falls in a late chunk: every earlier chunk's deletes must roll back with it.
        let error = try await #require(throws: RepositoryError.self) {
            try await store.delete(ids: Array(0..<5_000))
        }
        #expect(error.code == .conflict)
        #expect(try await store.count() == 6_000)
        try await store.close()
    }

    @Test func largeBatchIsSavedWholeInOrder() async throws {
        let url = scratch.file()
        let store = try await makeStore(at: url)
        try await store.close()
        let reopened = try await SQLiteRepository<ConformanceEntity>(fileURL: url)
        #expect(try await reopened.fetchAll() == (0..<6_000).map { .make(index: $0, revision: 0) })
        try await reopened.close()
    }
}
