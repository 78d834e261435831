import Foundation
import Repositories
import RepositoriesTesting
import Testing

/// What a store keeps: the entity as JSON, under its ID.
struct StoredItem: Identifiable, Sendable, Equatable {
    var id: Int
    var json: Data
}

private let encoder = JSONEncoder()
private let decoder = JSONDecoder()

@Sendable private func toStored(_ entity: Item) throws -> StoredItem {
    StoredItem(id: entity.id, json: try encoder.encode(entity))
}

@Sendable private func toDomain(_ record: StoredItem) throws -> Item {
    try decoder.decode(Item.self, from: record.json)
}

@Suite struct MappedRepositoryTests {
    @Test func conformsOverADTOStore() async throws {
        // The fixture's unencodable entity makes `toStored` throw mid-batch, so the
        // failed-batch law checks that a conversion failure writes nothing.
        try await RepositoryConformance(makeRepository: {
            InMemoryRepository<StoredItem>().mapped(toDomain: toDomain, toStored: toStored)
        }).run()
    }

    @Test func aConversionFailureOnSaveWritesNothing() async throws {
        let records = InMemoryRepository<StoredItem>()
        let items = records.mapped(toDomain: toDomain, toStored: toStored)
        let error = await expectRepositoryError(.encodingFailed) {
            try await items.save(Item.unencodable(index: 1))
        }
        #expect(error?.id == "1")
        #expect(error?.underlying is Item.EncodingRefused)
        #expect(try await records.count() == 0)
    }

    @Test func aBatchWithOneUnconvertibleEntityWritesNothing() async throws {
        let records = InMemoryRepository<StoredItem>()
        let items = records.mapped(toDomain: toDomain, toStored: toStored)
        try await items.save(item(1))
        await expectRepositoryError(.encodingFailed) {
            try await items.save(contentsOf: [item(2), Item.unencodable(index: 3), item(4)])
        }
        #expect(try await items.fetchAll() == [item(1)])
    }

    @Test func anUnreadableRecordThrowsDecodingFailedNamingIt() async throws {
        let records = InMemoryRepository<StoredItem>([StoredItem(id: 7, json: Data("{".utf8))])
        let items = records.mapped(toDomain: toDomain, toStored: toStored)
        let error = await expectRepositoryError(.decodingFailed) { _ = try await items.fetch(id: 7) }
        #expect(error?.record == "7")
        await expectRepositoryError(.decodingFailed) { _ = try await items.fetchAll() }
    }

    @Test func queriesOnTheDomainTypeAreAnsweredInMemory() async throws {
        let items = InMemoryRepository<StoredItem>().mapped(toDomain: toDomain, toStored: toStored)
        try await items.save(contentsOf: (1...6).map { item($0) })
        let query = Query<Item>().filter { $0.id.isMultiple(of: 2) }.sorted(by: \.id, .descending).limit(2)
        #expect(try await items.fetch(query).map(\.id) == [6, 4])
        await expectRepositoryError(.rejected) { _ = try await items.fetch(Query<Item>().offset(-1)) }
    }

    @Test func aConversionThatChangesTheIDIsRefused() async throws {
        let records = InMemoryRepository<StoredItem>()
        let items = records.mapped(
            toDomain: toDomain, toStored: { StoredItem(id: $0.id + 1, json: try encoder.encode($0)) })
        await expectRepositoryError(.encodingFailed) { try await items.save(item(1)) }
        #expect(try await records.count() == 0)
    }
}
