import Foundation
import RepositoriesTestSupport
import Testing

@testable import Repositories

/// A record's length is a `UInt32`: an entity, batch or delete larger than one record holds
/// throws `rejected` naming it and the limit, and writes nothing. The save paths are tested
/// against a lowered limit, so no test needs gigabytes of memory.
@Suite struct FileRepositoryRecordSizeTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    struct Attachment: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var contents: String

        static func make(_ id: Int, length: Int) -> Attachment {
            Attachment(id: id, contents: String(repeating: "a", count: length))
        }
    }

    @Test func theFormatsLimitIsFourGiBLessWhatABatchOfOneSpends() throws {
        let limit = FileRepository<Attachment>.maxEntityLength(recordLimit: JournalFormat.maxPayloadLength)
        #expect(limit == UInt64(UInt32.max) - 8)
        try FileRepository<Attachment>.checkEntitySize(
            Int(limit), id: "7", recordLimit: JournalFormat.maxPayloadLength, path: "/p")
        let error = #expect(throws: RepositoryError.self) {
            try FileRepository<Attachment>.checkEntitySize(
                Int(limit) + 1, id: "7", recordLimit: JournalFormat.maxPayloadLength, path: "/p")
        }
        #expect(error?.code == .rejected)
        #expect(error?.id == "7")
        #expect(error?.location == "/p")
        #expect(error?.description.contains("\(limit) bytes") == true)
        #expect(error?.description.contains("4294967288 bytes") == true)  // the entity's size
    }

    @Test func aBatchOverFourGiBInAllIsRefusedNamingWhereItPassedTheLimit() throws {
        let half = Int(UInt32.max / 2)
        let error = #expect(throws: RepositoryError.self) {
            try FileRepository<Attachment>.checkBatchSize(
                [100, half, half], ids: { ["1", "2", "3"] }, recordLimit: JournalFormat.maxPayloadLength,
                path: "/p")
        }
        #expect(error?.code == .rejected)
        #expect(error?.id == "3")
        #expect(error?.description.contains("\(JournalFormat.maxPayloadLength) bytes") == true)
        try FileRepository<Attachment>.checkBatchSize(
            [100, half - 200], ids: { ["1", "2"] }, recordLimit: JournalFormat.maxPayloadLength, path: "/p")
    }

    @Test func aSaveLargerThanARecordThrowsNamingItAndWritesNothing() async throws {
        let url = directory.file()
        let store = try await FileRepository<Attachment>(fileURL: url)
        store.hooks.recordSizeLimit.store(200, ordering: .relaxed)
        try await store.save(.make(1, length: 10))
        let before = try Data(contentsOf: url)

        let error = await #expect(throws: RepositoryError.self) {
            try await store.save(.make(2, length: 300))
        }
        #expect(error?.code == .rejected)
        #expect(error?.id == "2")
        #expect(error?.location == url.path)
        #expect(error?.description.contains("192 bytes") == true)  // 200 less a batch of one's 8
        #expect(try Data(contentsOf: url) == before)
        #expect(try await store.fetchAll() == [.make(1, length: 10)])
        try await store.close()
    }

    @Test func aBatchLargerThanARecordWritesNothingOfIt() async throws {
        let url = directory.file()
        let store = try await FileRepository<Attachment>(fileURL: url)
        store.hooks.recordSizeLimit.store(300, ordering: .relaxed)
        let before = try Data(contentsOf: url)

        // Each fits alone; together they do not.
        let error = await #expect(throws: RepositoryError.self) {
            try await store.save(contentsOf: (1...3).map { .make($0, length: 100) })
        }
        #expect(error?.code == .rejected)
        #expect(error?.id == "3")
        // One that does not fit alone is named, wherever it is in the batch.
        let alone = await #expect(throws: RepositoryError.self) {
            try await store.save(contentsOf: [.make(1, length: 10), .make(2, length: 400)])
        }
        #expect(alone?.id == "2")
        #expect(try Data(contentsOf: url) == before)
        #expect(try await store.count() == 0)
        try await store.close()
    }

    @Test func aDeleteOfMoreIDsThanARecordHoldsDeletesNothing() async throws {
        let url = directory.file()
        let store = try await FileRepository<Attachment>(fileURL: url)
        try await store.save(contentsOf: (1...100).map { .make($0, length: 1) })
        store.hooks.recordSizeLimit.store(100, ordering: .relaxed)
        let before = try Data(contentsOf: url)

        let error = await #expect(throws: RepositoryError.self) {
            try await store.delete(ids: Array(1...100))
        }
        #expect(error?.code == .rejected)
        #expect(try Data(contentsOf: url) == before)
        #expect(try await store.count() == 100)
        try await store.close()
    }

    @Test func compactionSplitsItsSnapshotSoEveryRecordFits() async throws {
        let url = directory.file()
        let store = try await FileRepository<Attachment>(fileURL: url)
        let limit = 1_000
        store.hooks.recordSizeLimit.store(UInt64(limit), ordering: .relaxed)
        let entities = (1...40).map { Attachment.make($0, length: 90) }
        for entity in entities { try await store.save(entity) }
        try await store.compact()
        try await store.close()

        let lengths = try recordPayloadLengths(in: Data(contentsOf: url))
        #expect(lengths.count > 1)
        #expect(lengths.allSatisfy { $0 <= limit }, "record payloads: \(lengths)")
        let reopened = try await FileRepository<Attachment>(fileURL: url)
        #expect(try await reopened.fetchAll() == entities)
        try await reopened.close()
    }

    /// The payload length of every record after the 16-byte header.
    private func recordPayloadLengths(in data: Data) -> [Int] {
        let bytes = [UInt8](data)
        var lengths: [Int] = []
        var position = 16
        while position + 16 <= bytes.count {
            let length =
                Int(bytes[position]) | Int(bytes[position + 1]) << 8 | Int(bytes[position + 2]) << 16
                | Int(bytes[position + 3]) << 24
            lengths.append(length)
            position += 16 + length
        }
        #expect(position == bytes.count)
        return lengths
    }
}
