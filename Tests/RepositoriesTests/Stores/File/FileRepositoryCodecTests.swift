import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

/// A file records the codec of its entities; it keeps it for life, whatever later options
/// say, so every file an earlier release wrote opens unchanged.
@Suite struct FileRepositoryCodecTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    static func header(of url: URL) throws -> (format: UInt8, codec: UInt8) {
        let bytes = try Data(contentsOf: url)
        return (bytes[8], bytes[10])
    }

    @Test func aNewFileRecordsTheCodecTheOptionsName() async throws {
        let binaryURL = directory.file("binary.store")
        let binary = try await FileRepository<TodoV1>(fileURL: binaryURL)
        try await binary.save(TodoV1.make(1, title: "readable only when decoded"))
        try await binary.close()
        #expect(try Self.header(of: binaryURL) == (3, EntityCodec.Identifier.binary.rawValue))
        #expect(binary.codec.identifier == .binary, "binary unless the options say otherwise")

        let jsonURL = directory.file("json.store")
        let json = try await FileRepository<TodoV1>(fileURL: jsonURL, options: .init(codec: .json))
        try await json.save(TodoV1.make(1, title: "readable in the file"))
        try await json.close()
        #expect(try Self.header(of: jsonURL) == (3, EntityCodec.Identifier.json.rawValue))
        let text = String(decoding: try Data(contentsOf: jsonURL), as: UTF8.self)
        #expect(text.contains(#""title":"readable in the file""#))
    }

    @Test(arguments: [EntityCodec.Identifier.json, .binary])
    func aFileKeepsItsCodecThroughWritesCompactionAndOtherOptions(created: EntityCodec.Identifier)
        async throws
    {
        let url = directory.file()
        let first = try await FileRepository<TodoV1>(fileURL: url, options: .init(codec: created))
        try await first.save(contentsOf: (1...50).map { TodoV1.make($0) })
        try await first.close()

        let other: EntityCodec.Identifier = created == .json ? .binary : .json
        let reopened = try await FileRepository<TodoV1>(fileURL: url, options: .init(codec: other))
        #expect(reopened.codec.identifier == created, "the file's codec, not the options'")
        try await reopened.save(TodoV1.make(51))
        try await reopened.delete(id: 3)
        try await reopened.compact()
        try await reopened.save(TodoV1.make(2, title: "after compaction"))
        try await reopened.close()
        #expect(try Self.header(of: url).codec == created.rawValue)

        let last = try await FileRepository<TodoV1>(fileURL: url)
        var expected = (1...51).filter { $0 != 3 }.map { TodoV1.make($0) }
        expected[1] = TodoV1.make(2, title: "after compaction")
        #expect(try await last.fetchAll() == expected)
        try await last.close()
    }

    @Test func aFileInACodecThisVersionDoesNotKnowIsRefusedAndLeftAsItWas() async throws {
        let url = directory.file()
        let store = try await FileRepository<TodoV1>(fileURL: url)
        try await store.save(TodoV1.make(1))
        try await store.close()
        var bytes = [UInt8](try Data(contentsOf: url))
        bytes[10] = 0x5A  // a codec of a later release
        let checksum = CRC32.checksum(bytes[0..<12])
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(12..<16, with: $0) }
        try Data(bytes).write(to: url)

        let error = await #expect(throws: RepositoryError.self) {
            _ = try await FileRepository<TodoV1>(fileURL: url)
        }
        #expect(error?.code == .rejected)
        #expect(error?.reason.contains("codec 0x5A") == true, "\(error?.reason ?? "")")
        #expect(error?.recovery?.contains("newer version") == true)
        #expect(try Data(contentsOf: url) == Data(bytes), "the file was left untouched")
    }
}
