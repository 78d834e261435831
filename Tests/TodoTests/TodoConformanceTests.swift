import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@testable import Todo

/// The example's real store, `FileRepository<Todo>`, against every law of `Repository`,
/// with the example's own entity, durability across close and reopen included.
@Suite struct TodoConformanceTests {
    let directory: TemporaryDirectory
    let suite: RepositoryConformance<FileRepository<Todo>>

    init() throws {
        let directory = try TemporaryDirectory()
        var options = ConformanceOptions<FileRepository<Todo>>()
        options.reopen = { store in
            try await store.close()
            return try await FileRepository<Todo>(fileURL: store.fileURL)
        }
        options.tearDown = { store in
            try await store.close()
            try FileManager.default.removeItem(at: store.fileURL)
        }
        options.makeUnencodableEntity = { Todo.unencodable(index: $0) }
        self.directory = directory
        suite = RepositoryConformance(
            options: options,
            makeRepository: { try await FileRepository<Todo>(fileURL: directory.file("\(UUID()).journal")) },
            makeEntity: { Todo.make(index: $0, revision: $1) })
    }

    @Test func basics() async throws { expectEveryLaw(of: .basics, in: try await suite.basics()) }
    @Test func batches() async throws { expectEveryLaw(of: .batches, in: try await suite.batches()) }
    @Test func ordering() async throws { expectEveryLaw(of: .ordering, in: try await suite.ordering()) }
    @Test func queries() async throws { expectEveryLaw(of: .queries, in: try await suite.queries()) }
    @Test func concurrency() async throws {
        expectEveryLaw(of: .concurrency, in: try await suite.concurrency())
    }
    @Test func randomized() async throws { expectEveryLaw(of: .randomized, in: try await suite.randomized()) }
    @Test func durability() async throws { expectEveryLaw(of: .durability, in: try await suite.durability()) }

    /// Every law of `area` was checked and held: none skipped (the unencodable todo makes a
    /// batch fail for real; `reopen` turns durability on).
    private func expectEveryLaw(of area: ConformanceArea, in report: ConformanceReport) {
        #expect(Set(report.passed) == Set(area.laws), "\(report)")
        #expect(report.skipped.isEmpty && report.notes.isEmpty, "\(report)")
    }
}
