import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

/// A store whose file is deleted or replaced while it is open refuses every write, naming
/// the path, instead of acknowledging writes nobody will read; compaction never renames
/// over the file now at the path; reads still answer from what the store holds.
@Suite struct FileRepositoryMovedFileTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    struct Item: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    @Test func aDeletedFileRefusesWritesNamingThePathAndKeepsReads() async throws {
        let url = directory.file()
        let store = try await FileRepository<Item>(fileURL: url)
        try await store.save(Item(id: 1, name: "tea"))
        try FileManager.default.removeItem(at: url)

        let error = await #expect(throws: RepositoryError.self) {
            try await store.save(Item(id: 2, name: "milk"))
        }
        #expect(error?.code == .rejected)
        #expect(error?.location == url.path)
        #expect(error?.description.contains(url.path) == true)
        #expect(error?.description.contains("deleted or moved away") == true)
        let compaction = await #expect(throws: RepositoryError.self) { try await store.compact() }
        #expect(compaction?.location == url.path)
        #expect(!FileManager.default.fileExists(atPath: url.path), "nothing may be renamed into its place")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)

        #expect(try await store.fetchAll() == [Item(id: 1, name: "tea")])
        #expect(try await store.fetch(id: 1) == Item(id: 1, name: "tea"))
        await #expect(throws: RepositoryError.self) { try await store.delete(id: 1) }
        await #expect(throws: RepositoryError.self) { try await store.save(Item(id: 3, name: "jam")) }
        try await store.close()
    }

    @Test func aFileRenamedOverTheStoreIsLeftByteForByte() async throws {
        let url = directory.file()
        let store = try await FileRepository<Item>(fileURL: url)
        try await store.save(Item(id: 1, name: "tea"))
        let other = directory.file("other.txt")
        let otherBytes = Data("somebody else's file\n".utf8)
        try otherBytes.write(to: other)
        #expect(rename(other.path, url.path) == 0)

        let error = await #expect(throws: RepositoryError.self) {
            try await store.save(Item(id: 2, name: "milk"))
        }
        #expect(error?.code == .rejected)
        #expect(error?.location == url.path)
        #expect(error?.description.contains("took the store file's place") == true)
        let compaction = await #expect(throws: RepositoryError.self) { try await store.compact() }
        #expect(compaction?.location == url.path)
        #expect(try Data(contentsOf: url) == otherBytes)
        #expect(try await store.fetchAll() == [Item(id: 1, name: "tea")])
        try await store.close()
        #expect(try Data(contentsOf: url) == otherBytes)
    }

    @Test func compactionFirstAfterAReplacementRenamesNothing() async throws {
        let url = directory.file()
        let store = try await FileRepository<Item>(fileURL: url)
        for revision in 0..<5 { try await store.save(Item(id: 1, name: "tea \(revision)")) }
        let otherBytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        try otherBytes.write(to: directory.file("other.png"))
        #expect(rename(directory.file("other.png").path, url.path) == 0)

        let error = await #expect(throws: RepositoryError.self) { try await store.compact() }
        #expect(error?.code == .rejected)
        #expect(error?.location == url.path)
        #expect(try Data(contentsOf: url) == otherBytes)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".compacting"))
        // The refusal holds for later writes too, and still touches nothing.
        await #expect(throws: RepositoryError.self) { try await store.save(Item(id: 2, name: "milk")) }
        #expect(try Data(contentsOf: url) == otherBytes)
        try await store.close()
    }

    @Test func aNewStoreOpenedAfterTheFileWasDeletedKeepsItsFile() async throws {
        let url = directory.file()
        let old = try await FileRepository<Item>(fileURL: url)
        try await old.save(Item(id: 1, name: "tea"))
        try FileManager.default.removeItem(at: url)
        let new = try await FileRepository<Item>(fileURL: url)
        try await new.save(Item(id: 9, name: "coffee"))
        let newBytes = try Data(contentsOf: url)

        await #expect(throws: RepositoryError.self) { try await old.save(Item(id: 2, name: "milk")) }
        await #expect(throws: RepositoryError.self) { try await old.compact() }
        try await old.close()
        #expect(try Data(contentsOf: url) == newBytes)
        #expect(try await new.fetchAll() == [Item(id: 9, name: "coffee")])
        try await new.close()
    }
}
