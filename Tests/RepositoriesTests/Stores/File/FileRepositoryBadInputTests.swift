import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// Every kind of bad input gets its own clear error, and leaves the data as it was.
@Suite struct FileRepositoryBadInputTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A value that refuses to be encoded when it is not finite, in every codec (JSON refuses
    /// it by itself; the binary codec would keep it).
    struct Measurement: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var value: Double

        func encode(to encoder: any Encoder) throws {
            guard value.isFinite else {
                throw EncodingError.invalidValue(
                    value, .init(codingPath: encoder.codingPath, debugDescription: "not a finite number"))
            }
            var fields = encoder.container(keyedBy: CodingKeys.self)
            try fields.encode(id, forKey: .id)
            try fields.encode(value, forKey: .value)
        }
    }

    static let codecs: [EntityCodec.Identifier] = [.binary, .json]

    @Test(arguments: codecs)
    func anEntityThatCannotBeEncodedThrowsAndWritesNothing(codec: EntityCodec.Identifier) async throws {
        let url = directory.file()
        let store = try await FileRepository<Measurement>(fileURL: url, options: .init(codec: codec))
        try await store.save(Measurement(id: 1, value: 1.5))
        let before = try Data(contentsOf: url)
        let error = await #expect(throws: RepositoryError.self) {
            try await store.save(Measurement(id: 2, value: .infinity))
        }
        #expect(error?.code == .encodingFailed)
        #expect(error?.id == "2")
        #expect(try Data(contentsOf: url) == before)
        #expect(try await store.fetchAll() == [Measurement(id: 1, value: 1.5)])
        try await store.close()
    }

    @Test(arguments: codecs)
    func aFailedBatchWritesNothing(codec: EntityCodec.Identifier) async throws {
        let url = directory.file()
        let store = try await FileRepository<Measurement>(fileURL: url, options: .init(codec: codec))
        let before = try Data(contentsOf: url)
        let batch = [
            Measurement(id: 1, value: 1), Measurement(id: 2, value: .nan), Measurement(id: 3, value: 3),
        ]
        let error = await #expect(throws: RepositoryError.self) { try await store.save(contentsOf: batch) }
        #expect(error?.code == .encodingFailed)
        #expect(error?.id == "2")
        #expect(try Data(contentsOf: url) == before)
        #expect(try await store.count() == 0)
        try await store.close()
    }

    /// The model as an app shipped it, and as the next version changed it.
    struct ProductV1: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    struct ProductV2: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var name: String
        var price: Double  // new and required: old records lack it
    }

    @Test func aRecordFromAnOlderModelThrowsDecodingFailedNamingIt() async throws {
        let url = directory.file()
        let old = try await FileRepository<ProductV1>(fileURL: url)
        try await old.save(ProductV1(id: 7, name: "tea"))
        try await old.close()
        let before = try Data(contentsOf: url)

        let error = await #expect(throws: RepositoryError.self) {
            try await FileRepository<ProductV2>(fileURL: url)
        }
        #expect(error?.code == .decodingFailed)
        #expect(error?.record?.contains("id 7") == true)
        #expect(error?.location == url.path)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func undecodableRecordsCanBeSetAsideToOpenWithTheRest() async throws {
        let url = directory.file()
        let old = try await FileRepository<ProductV1>(fileURL: url, options: .init(codec: .json))
        try await old.save(ProductV1(id: 7, name: "tea"))
        try await old.close()

        // A JSON file's side file keeps the record readable as JSON too.
        let options = FileRepository<ProductV2>.Options(undecodableRecords: .setAside)
        let store = try await FileRepository<ProductV2>(fileURL: url, options: options)
        #expect(store.setAsideRecordCount == 1)
        #expect(try await store.fetchAll().isEmpty)
        try await store.save(ProductV2(id: 8, name: "milk", price: 1))
        try await store.close()

        let sideFile = try String(
            contentsOf: URL(fileURLWithPath: url.path + ".undecodable.jsonl"), encoding: .utf8)
        #expect(sideFile.contains("tea"))
        #expect(sideFile.contains("\"offset\""))

        // The store was rewritten without them: the next open sets nothing aside again.
        let again = try await FileRepository<ProductV2>(fileURL: url, options: options)
        #expect(again.setAsideRecordCount == 0)
        #expect(try await again.fetchAll() == [ProductV2(id: 8, name: "milk", price: 1)])
        try await again.close()
        let sideFileAfter = try String(
            contentsOf: URL(fileURLWithPath: url.path + ".undecodable.jsonl"), encoding: .utf8)
        #expect(sideFileAfter == sideFile)
    }

    /// The model between the two: `price` optional, so it can write records of both shapes.
    struct ProductDraft: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var name: String
        var price: Double?
    }

    @Test func aSetAsideRecordNeverLetsAnOlderVersionBeServed() async throws {
        let url = directory.file()
        let drafts = try await FileRepository<ProductDraft>(fileURL: url)
        try await drafts.save(ProductDraft(id: 7, name: "tea", price: 3))
        try await drafts.save(ProductDraft(id: 7, name: "green tea", price: nil))  // V2 cannot read this one
        try await drafts.close()

        let options = FileRepository<ProductV2>.Options(undecodableRecords: .setAside)
        let store = try await FileRepository<ProductV2>(fileURL: url, options: options)
        #expect(store.setAsideRecordCount == 1)
        #expect(try await store.fetch(id: 7) == nil, "the older tea must not stand in for the newer one")
        try await store.close()
    }

    @Test(arguments: ["empty", "jpeg", "text", "short"])
    func aFileThatIsNotAStoreThrowsCorruptedAndIsLeftAsItWas(kind: String) async throws {
        let url = directory.file()
        let contents: [UInt8] =
            switch kind {
            case "empty": []
            case "jpeg":
                [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01]
                    + Array(repeating: 0x42, count: 500)
            case "text": Array("name,price\ntea,3\n".utf8)
            default: Array(JournalHeader.bytes.prefix(10))
            }
        try Data(contents).write(to: url)
        let error = await #expect(throws: RepositoryError.self) {
            try await FileRepository<ProductV1>(fileURL: url)
        }
        #expect(error?.code == .corrupted)
        #expect(error?.location == url.path)
        #expect(error?.offset == 0)
        #expect(try Data(contentsOf: url) == Data(contents))
    }

    @Test func aDirectoryIsRejectedWithAClearMessage() async throws {
        let error = await #expect(throws: RepositoryError.self) {
            try await FileRepository<ProductV1>(fileURL: directory.url)
        }
        #expect(error?.code == .rejected)
        #expect(error?.description.contains("is a directory") == true)
    }

    @Test func aMissingDirectoryIsRejectedNamingThePath() async throws {
        let url = directory.url.appending(path: "missing/store.journal")
        let error = await #expect(throws: RepositoryError.self) {
            try await FileRepository<ProductV1>(fileURL: url)
        }
        #expect(error?.code == .rejected)
        #expect(error?.description.contains("missing") == true)
    }

    @Test func callsAfterCloseThrowClosed() async throws {
        let store = try await FileRepository<ProductV1>(fileURL: directory.file())
        try await store.close()
        try await store.close()  // closing twice is fine
        await #expect(throws: RepositoryError.self) { try await store.fetchAll() }
        let error = await #expect(throws: RepositoryError.self) {
            try await store.save(ProductV1(id: 1, name: "x"))
        }
        #expect(error?.code == .closed)
    }

    @Test func aSecondOpenerInThisProcessGetsLocked() async throws {
        let url = directory.file()
        let first = try await FileRepository<ProductV1>(fileURL: url)
        let error = await #expect(throws: RepositoryError.self) {
            try await FileRepository<ProductV1>(fileURL: url)
        }
        #expect(error?.code == .locked)
        #expect(error?.location == url.path)
        try await first.close()
        let second = try await FileRepository<ProductV1>(fileURL: url)
        try await second.close()
    }

    @Test func theLockedErrorNamesTheOptionThatWaits() async throws {
        let url = directory.file()
        let first = try await FileRepository<ProductV1>(fileURL: url)
        let atOnce = await #expect(throws: RepositoryError.self) {
            try await FileRepository<ProductV1>(fileURL: url)
        }
        #expect(atOnce?.recovery?.contains("Options(lockWait:") == true)
        #expect(
            atOnce?.recovery?.contains("choose SQLiteRepository") == true,
            "the error names the store for sharing")
        #expect(atOnce?.description.contains("lockWait") == true)

        // A waiter that gave up is told to wait longer, not to start waiting.
        let afterWaiting = await #expect(throws: RepositoryError.self) {
            try await FileRepository<ProductV1>(fileURL: url, options: .init(lockWait: .zero))
        }
        #expect(afterWaiting?.code == .locked)
        #expect(afterWaiting?.recovery?.contains("longer lockWait") == true)
        try await first.close()
    }

    @Test func aWaitingOpenerGetsTheStoreOnceItIsReleased() async throws {
        let url = directory.file()
        let first = try await FileRepository<ProductV1>(fileURL: url)
        try await first.save(ProductV1(id: 1, name: "tea"))
        let waiter = Task {
            try await FileRepository<ProductV1>(fileURL: url, options: .init(lockWait: .seconds(30)))
        }
        try await first.close()
        let second = try await waiter.value
        #expect(try await second.fetchAll() == [ProductV1(id: 1, name: "tea")])
        try await second.close()
    }
}

/// The first bytes of every store file, for tests that forge damaged ones.
enum JournalHeader {
    static let bytes: [UInt8] = [0x89, 0x52, 0x45, 0x50, 0x4F, 0x0D, 0x0A, 0x1A, 0x01, 0x00, 0x00, 0x00]
}
