import Foundation
import Repositories
import RepositoriesSQLite
import RepositoriesTestSupport
import Testing

/// `fetchAll` of tables large enough to be decoded in batches while the later rows are read,
/// by several threads at once: the rows come back in insertion order, and the error is the
/// one a check of every row, then a decode of every row, in order, would throw.
@Suite struct SQLiteRepositoryFetchAllTests {
    /// A directory of its own for each test, removed with it.
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    /// Rows enough for several batches (``SQLiteDecodingScan/batchSize`` is 1,024).
    static let rowCount = 6_000
    static let options = SQLiteOptions(tableName: "items")

    /// The entity as written: `value` may be absent.
    struct Written: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var value: Int?
    }

    /// The entity as read: `value` is required, so a row written without one does not decode.
    struct Required: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var value: Int
    }

    @Test func largeTableComesBackWholeInInsertionOrder() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Written>(fileURL: url, options: Self.options)
        // Descending IDs, so insertion order is not ID order; then a replacement keeps its place.
        let written = (0..<Self.rowCount).reversed().map { Written(id: $0, value: $0) }
        try await store.save(contentsOf: written)
        try await store.save(Written(id: 10, value: -10))
        let expected = written.map { $0.id == 10 ? Written(id: 10, value: -10) : $0 }
        #expect(try await store.fetchAll() == expected)
        try await store.close()
        let reopened = try await SQLiteRepository<Required>(fileURL: url, options: Self.options)
        #expect(try await reopened.fetchAll().map(\.value) == expected.map(\.value))
        try await reopened.close()
    }

    @Test(arguments: [[1_200, 4_500], [4_500, 5_999], [0, 3_000]])
    func firstRowThatDoesNotDecodeIsNamed(_ undecodable: [Int]) async throws {
        let url = try await writeTable(withoutValueAt: Set(undecodable))
        let store = try await SQLiteRepository<Required>(fileURL: url, options: Self.options)
        let error = try await #require(throws: RepositoryError.self) { try await store.fetchAll() }
        #expect(error.code == .decodingFailed)
        #expect(error.record == String(undecodable[0]))
        try await store.close()
    }

    @Test func damageAnywhereIsReportedBeforeARowThatDoesNotDecode() async throws {
        let url = try await writeTable(withoutValueAt: [100])
        let raw = try RawDatabase(url)
        try raw.execute(#"UPDATE "items" SET crc = crc + 1 WHERE id = 5000"#)
        let store = try await SQLiteRepository<Required>(fileURL: url, options: Self.options)
        let error = try await #require(throws: RepositoryError.self) { try await store.fetchAll() }
        #expect(error.code == .corrupted)
        #expect(error.id == "5000")
        try await store.close()
    }

    @Test func theFirstOfSeveralDamagedRowsIsNamedWhicheverBatchIsCheckedFirst() async throws {
        let url = try await writeTable(withoutValueAt: [])
        let raw = try RawDatabase(url)
        // The last batch is decoded on the reading thread, often before the workers finish
        // the earlier ones: the damage named is still the first in insertion order.
        try raw.execute(#"UPDATE "items" SET crc = crc + 1 WHERE id IN (1500, 3100, 5999)"#)
        let store = try await SQLiteRepository<Required>(fileURL: url, options: Self.options)
        for _ in 0..<20 {
            let error = try await #require(throws: RepositoryError.self) { try await store.fetchAll() }
            #expect(error.code == .corrupted)
            #expect(error.id == "1500")
        }
        try await store.close()
    }

    @Test func readersOfALargeTableWhileItIsWrittenSeeWholeBatches() async throws {
        let url = scratch.file()
        let store = try await SQLiteRepository<Written>(fileURL: url, options: Self.options)
        try await store.save(contentsOf: (0..<Self.rowCount).map { Written(id: $0, value: 0) })
        // Each batch rewrites every value to its generation: a read sees one generation only.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for generation in 1...6 {
                    try await store.save(
                        contentsOf: (0..<Self.rowCount).map { Written(id: $0, value: generation) })
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<6 {
                        let read = try await store.fetchAll()
                        #expect(read.map(\.id) == Array(0..<Self.rowCount))
                        #expect(Set(read.map(\.value)).count == 1)
                    }
                }
            }
            try await group.waitForAll()
        }
        try await store.close()
    }

    /// A table of ``rowCount`` rows, IDs in insertion order, each with a value except `missing`.
    private func writeTable(withoutValueAt missing: Set<Int>) async throws -> URL {
        let url = scratch.file()
        let store = try await SQLiteRepository<Written>(fileURL: url, options: Self.options)
        try await store.save(
            contentsOf: (0..<Self.rowCount).map { Written(id: $0, value: missing.contains($0) ? nil : $0) })
        try await store.close()
        return url
    }
}
