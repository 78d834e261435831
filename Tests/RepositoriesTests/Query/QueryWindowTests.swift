import Foundation
import RepositoriesTestSupport
import Testing

@testable import Repositories

/// `QueryWindow` keeps a query's answer from the writes; these laws hold it to the answer of
/// running the query on the store after every write, over stores of this package.
@Suite struct QueryWindowTests {
    struct Row: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        /// Few values, so many rows tie.
        var rank: Int
        var shown: Bool
    }

    static let queries: [(String, Query<Row>)] = [
        ("stored order", Query()),
        ("stored order, a page", Query().offset(3).limit(5)),
        ("by rank", Query().sorted(by: \.rank)),
        ("by rank, descending, the first 4", Query().sorted(by: \.rank, .descending).limit(4)),
        (
            "shown, by rank then ID, a page",
            Query().filter { $0.shown }.sorted(by: \.rank).sorted(by: \.id).offset(2).limit(6)
        ),
        ("shown, by rank, the first 7", Query().filter { $0.shown }.sorted(by: \.rank).limit(7)),
        ("an empty page", Query().sorted(by: \.rank).limit(0)),
        ("a page past the end", Query().sorted(by: \.rank).offset(500).limit(5)),
    ]

    @Test(arguments: 0..<queries.count)
    func theWindowAnswersAsTheQueryDoesInMemory(_ index: Int) async throws {
        for seed in 1...12 {
            try await check(Self.queries[index], seed: UInt64(seed), store: InMemoryRepository<Row>())
        }
    }

    @Test(arguments: 0..<queries.count)
    func theWindowAnswersAsTheQueryDoesOverAFile(_ index: Int) async throws {
        let directory = try TemporaryDirectory()
        for seed in 1...3 {
            let store = try await FileRepository<Row>(
                fileURL: directory.url.appending(path: "rows-\(seed).store"),
                options: .init(durability: .never))
            try await check(Self.queries[index], seed: UInt64(seed), store: store)
            try await store.close()
        }
    }

    /// 300 random writes (new rows, updates that move a row, deletes, a deleted ID saved
    /// again); after each, the window's answer equals the store's. A write that leaves the
    /// answer unknown makes the window start again from the store, as the snapshot streams
    /// do; a new row never does.
    private func check(_ named: (String, Query<Row>), seed: UInt64, store: some Repository<Row, Int>)
        async throws
    {
        let (name, query) = named
        var random = SeededRandomNumberGenerator(seed: seed)
        var window = QueryWindow(query, holding: try await store.fetch(QueryWindow.prefix(of: query)))
        var restarts = 0
        for step in 0..<300 {
            let id = Int.random(in: 0..<40, using: &random)
            let wasStored = try await store.fetch(id: id) != nil
            let write: LocalWrite<Row>
            if wasStored && Int.random(in: 0..<4, using: &random) == 0 {
                try await store.delete(id: id)
                write = LocalWrite(id: id, entity: nil, wasStored: true)
            } else {
                let row = Row(
                    id: id, rank: Int.random(in: 0..<3, using: &random), shown: Bool.random(using: &random))
                try await store.save(row)
                write = LocalWrite(id: id, entity: row, wasStored: wasStored)
            }
            if !window.apply([write]) {
                #expect(wasStored, "\(name), seed \(seed), step \(step): a new row left the answer unknown")
                restarts += 1
                window = QueryWindow(query, holding: try await store.fetch(QueryWindow.prefix(of: query)))
            }
            let expected = try await store.fetch(query)
            #expect(
                window.entities == expected,
                "\(name), seed \(seed), step \(step): \(write.entity.map { "saved \($0)" } ?? "deleted \(id)")"
            )
            if window.entities != expected { return }
        }
        #expect(restarts < 300, "\(name): every write made the window start again")
    }

    @Test func aBatchIsTakenInItsOrder() async throws {
        let store = InMemoryRepository<Row>()
        let query = Query<Row>().sorted(by: \.rank)
        var window = QueryWindow(query, holding: [])
        let rows = (0..<10).map { Row(id: $0, rank: $0 % 2, shown: true) }
        try await store.save(contentsOf: rows)
        let known = window.apply(rows.map { LocalWrite(id: $0.id, entity: $0, wasStored: false) })
        #expect(known, "new rows never leave the answer unknown")
        #expect(window.entities == (try await store.fetch(query)))
    }
}
