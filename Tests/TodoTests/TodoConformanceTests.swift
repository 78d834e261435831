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
        self.directory = directory
        suite = RepositoryConformance(
            options: options,
            makeRepository: { try await FileRepository<Todo>(fileURL: directory.file("\(UUID()).journal")) },
            makeEntity: { Todo.make(index: $0, revision: $1) })
    }

    @Test func basics() async throws { expectEveryLaw(of: .basics, in: try await suite.basics()) }
    /// The binary codec the example's journal is written in encodes every `Todo` (a date
    /// that is not a number too, which JSON refused), so no batch of todos can be made to
    /// fail encoding: that one law is skipped here. It is proven for `FileRepository` with
    /// the suite's own refusing entity in `FileRepositoryConformanceTests`.
    @Test func batches() async throws {
        expectEveryLaw(
            of: .batches, in: try await suite.batches(), except: "failedBatchLeavesNothing")
    }
    @Test func ordering() async throws { expectEveryLaw(of: .ordering, in: try await suite.ordering()) }
    @Test func queries() async throws { expectEveryLaw(of: .queries, in: try await suite.queries()) }
    @Test func concurrency() async throws {
        expectEveryLaw(of: .concurrency, in: try await suite.concurrency())
    }
    @Test func randomized() async throws { expectEveryLaw(of: .randomized, in: try await suite.randomized()) }
    @Test func durability() async throws { expectEveryLaw(of: .durability, in: try await suite.durability()) }

    /// Every law of `area` was checked and held: none skipped but `skippable`, if named
    /// (`reopen` turns durability on).
    private func expectEveryLaw(
        of area: ConformanceArea, in report: ConformanceReport, except skippable: String? = nil
    ) {
        #expect(
            Set(report.passed.map { "\($0)" })
                == Set(area.laws.map { "\($0)" }).subtracting([skippable].compactMap { $0 }), "\(report)")
        #expect(report.skipped.allSatisfy { "\($0.law)" == skippable } && report.notes.isEmpty, "\(report)")
        #expect(report.violations.isEmpty, "\(report)")
    }
}
