import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

@testable import RepositoriesSQLite

/// What a read does when its read-only connection meets a lock.
///
/// In WAL mode that happens only in passing (while another connection recovers the log after
/// a crash), which no test can hold open, so these tests make the read itself report
/// `SQLITE_BUSY`.
@Suite struct SQLiteDatabaseReadFallbackTests {
    /// A directory of its own for each test, removed with it.
    let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
    }

    @Test func readThatMeetsALockRunsAgainOnTheWritersQueue() async throws {
        let table = try SQLiteTable(name: "Note")
        let database = try await SQLiteDatabase.open(
            path: scratch.file().path(percentEncoded: false), table: table, options: SQLiteOptions(),
            canonicalizesKeys: true)
        let calls = FinishedCount()
        let count = try await database.read { connection in
            calls.increment()
            // The first run, on a reader, meets a lock; the second runs on the writer's
            // queue (which perform(_:) checks) and answers.
            if calls.value == 1 { throw SQLiteError(extendedCode: SQLiteError.busy, message: "locked") }
            return try table.rowCount(on: connection)
        }
        #expect(count == 0)
        #expect(calls.value == 2)
        try await database.close()
    }

    @Test func readThatMeetsALockOnTheWriterTooThrowsLocked() async throws {
        let database = try await SQLiteDatabase.open(
            path: scratch.file().path(percentEncoded: false), table: try SQLiteTable(name: "Note"),
            options: SQLiteOptions(), canonicalizesKeys: true)
        let calls = FinishedCount()
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await database.read { _ -> Int in
                calls.increment()
                throw SQLiteError(extendedCode: SQLiteError.busy, message: "locked")
            }
        }
        #expect(error.code == .locked)
        #expect(calls.value == 2)
        try await database.close()
    }

    @Test func otherReadErrorsAreNotRetried() async throws {
        let database = try await SQLiteDatabase.open(
            path: scratch.file().path(percentEncoded: false), table: try SQLiteTable(name: "Note"),
            options: SQLiteOptions(), canonicalizesKeys: true)
        let calls = FinishedCount()
        let error = try await #require(throws: RepositoryError.self) {
            _ = try await database.read { _ -> Int in
                calls.increment()
                throw SQLiteError(extendedCode: SQLiteError.corrupt, message: "malformed")
            }
        }
        #expect(error.code == .corrupted)
        #expect(calls.value == 1)
        try await database.close()
    }
}
