import Foundation
import RepositoriesTestSupport
import Testing

@testable import Repositories

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A write the file system refuses fails that call only: reads go on, and later writes
/// are tried again, because nothing half-written is left in the journal. A failed flush,
/// after which the store cannot vouch for the file, refuses writes until it is reopened,
/// and reads still go on.
@Suite struct FileRepositoryRefusedWriteTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    struct Item: Codable, Identifiable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    @Test func aRefusedWriteThatLeftNothingFailsThatCallOnly() async throws {
        let url = directory.file()
        let store = try await FileRepository<Item>(fileURL: url)
        try await store.save(Item(id: 1, name: "tea"))
        let before = try Data(contentsOf: url)
        // As an immutable file or a read-only file system answers: the write and the cut both refused.
        store.hooks.plan(.init(code: EPERM, times: 1), for: .write)
        store.hooks.plan(.init(code: EPERM, times: 1), for: .truncate)

        let error = await #expect(throws: RepositoryError.self) {
            try await store.save(Item(id: 2, name: "milk"))
        }
        #expect(error?.code == .rejected)
        #expect(error?.location == url.path)
        #expect(try Data(contentsOf: url) == before)
        #expect(try await store.fetchAll() == [Item(id: 1, name: "tea")])
        try await store.save(Item(id: 3, name: "jam"))
        try await store.close()

        let reopened = try await FileRepository<Item>(fileURL: url)
        #expect(try await reopened.fetchAll() == [Item(id: 1, name: "tea"), Item(id: 3, name: "jam")])
        try await reopened.close()
    }

    @Test func aPartialWriteThatCannotBeCutIsCutBeforeTheNextWrite() async throws {
        let url = directory.file()
        let store = try await FileRepository<Item>(fileURL: url)
        try await store.save(Item(id: 1, name: "tea"))
        let before = try Data(contentsOf: url)
        // The write gets 1,500 bytes in, then fails; cutting them off fails twice.
        store.hooks.plan(.init(code: EIO, bytesFirst: 1_500, times: 1), for: .write)
        store.hooks.plan(.init(code: EPERM, times: 2), for: .truncate)

        await #expect(throws: RepositoryError.self) {
            try await store.save(Item(id: 2, name: String(repeating: "m", count: 2_000)))
        }
        #expect(try Data(contentsOf: url).count == before.count + 1_500)
        // The next write must cut first; it cannot yet, so it writes nothing.
        await #expect(throws: RepositoryError.self) { try await store.save(Item(id: 3, name: "jam")) }
        #expect(try await store.fetchAll() == [Item(id: 1, name: "tea")])

        // Once the file takes writes again, the leftover is cut and the write goes after the last good record.
        try await store.save(Item(id: 4, name: "honey"))
        try await store.close()
        let reopened = try await FileRepository<Item>(fileURL: url)
        #expect(try await reopened.fetchAll() == [Item(id: 1, name: "tea"), Item(id: 4, name: "honey")])
        try await reopened.close()
    }

    @Test func aFailedFlushRefusesWritesUntilReopenedButKeepsReads() async throws {
        let url = directory.file()
        let store = try await FileRepository<Item>(fileURL: url)
        try await store.save(Item(id: 1, name: "tea"))
        store.hooks.plan(.init(code: EIO, times: 1), for: .synchronize)

        await #expect(throws: RepositoryError.self) { try await store.save(Item(id: 2, name: "milk")) }
        let later = await #expect(throws: RepositoryError.self) {
            try await store.save(Item(id: 3, name: "jam"))
        }
        #expect(later?.code == .unavailable)
        #expect(later?.recovery?.contains("open it again") == true)
        await #expect(throws: RepositoryError.self) { try await store.compact() }
        #expect(try await store.fetchAll() == [Item(id: 1, name: "tea")])
        #expect(try await store.count() == 1)
        try await store.close()

        let reopened = try await FileRepository<Item>(fileURL: url)
        try await reopened.save(Item(id: 3, name: "jam"))
        #expect(try await reopened.fetch(id: 3) == Item(id: 3, name: "jam"))
        try await reopened.close()
    }

    /// The real thing where the file system and the user allow it (Linux, root, ext4):
    /// an immutable file makes the kernel refuse writes through a descriptor already open.
    @Test(.enabled(if: Immutable.isAvailable))
    func anImmutableFileRefusesOneWriteAndTheNextSucceedsOnceItIsMutable()
        async throws
    {
        let url = directory.file()
        let store = try await FileRepository<Item>(fileURL: url)
        try await store.save(Item(id: 1, name: "tea"))
        let before = try Data(contentsOf: url)
        try Immutable.set(true, url)

        let error = await #expect(throws: RepositoryError.self) {
            try await store.save(Item(id: 2, name: "milk"))
        }
        try Immutable.set(false, url)
        #expect(error?.code == .rejected)
        #expect(error?.location == url.path)
        #expect(try Data(contentsOf: url) == before)
        #expect(try await store.fetchAll() == [Item(id: 1, name: "tea")])
        try await store.save(Item(id: 3, name: "jam"))
        try await store.close()

        let reopened = try await FileRepository<Item>(fileURL: url)
        #expect(try await reopened.fetchAll() == [Item(id: 1, name: "tea"), Item(id: 3, name: "jam")])
        try await reopened.close()
    }
}

/// `chattr +i` / `-i` (the `FS_IOC_SETFLAGS` ioctl, so no child process shares the store's
/// lock while it runs), when this machine can make a file immutable.
enum Immutable {
    static let isAvailable: Bool = {
        #if os(Linux)
            guard let directory = try? TemporaryDirectory() else { return false }
            let probe = directory.file("probe")
            guard FileManager.default.createFile(atPath: probe.path, contents: Data([1])),
                (try? set(true, probe)) != nil
            else { return false }
            return (try? set(false, probe)) != nil
        #else
            return false
        #endif
    }()

    struct Failed: Error {
        var code: Int32
    }

    static func set(_ immutable: Bool, _ url: URL) throws {
        #if os(Linux)
            let getFlags: UInt = 0x8008_6601  // FS_IOC_GETFLAGS
            let setFlags: UInt = 0x4008_6602  // FS_IOC_SETFLAGS
            let immutableFlag: CLong = 0x10  // FS_IMMUTABLE_FL
            let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw Failed(code: errno) }
            defer { close(descriptor) }
            var flags: CLong = 0
            guard ioctl(descriptor, getFlags, &flags) == 0 else { throw Failed(code: errno) }
            flags = immutable ? flags | immutableFlag : flags & ~immutableFlag
            guard ioctl(descriptor, setFlags, &flags) == 0 else { throw Failed(code: errno) }
        #else
            throw Failed(code: ENOTSUP)
        #endif
    }
}
