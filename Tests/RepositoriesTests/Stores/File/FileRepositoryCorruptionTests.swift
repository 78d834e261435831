import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// Damage a real store file at seeded random places: opening yields exactly the data the
/// intact records hold (a torn tail is dropped), or throws `corrupted` and leaves the file
/// byte-for-byte as it was.
@Suite struct FileRepositoryCorruptionTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A pristine store, and for every write the file length it ended at and the contents
    /// it left, so any cut can be checked against the writes it keeps whole.
    struct History {
        var bytes: [UInt8]
        var checkpoints: [(length: Int, contents: [FixtureEntity])]

        /// The contents of the last write that ends at or before `length`.
        func contents(keeping length: Int) -> [FixtureEntity]? {
            checkpoints.last { $0.length <= length }?.contents
        }
    }

    func makeHistory() async throws -> History {
        let url = directory.file()
        let store = try await FileRepository<FixtureEntity>(fileURL: url)
        let model = InMemoryRepository<FixtureEntity>()
        var checkpoints: [(Int, [FixtureEntity])] = [(try Data(contentsOf: url).count, [])]
        func checkpoint() async throws {
            checkpoints.append((try Data(contentsOf: url).count, try await model.fetchAll()))
        }
        for id in 0..<30 {
            try await store.save(.make(id))
            try await model.save(.make(id))
            try await checkpoint()
        }
        let batch = (100..<110).map(FixtureEntity.make)
        try await store.save(contentsOf: batch)
        try await model.save(contentsOf: batch)
        try await checkpoint()
        for id in stride(from: 0, to: 30, by: 4) {
            try await store.delete(id: id)
            try await model.delete(id: id)
            try await checkpoint()
        }
        try await store.save(.make(3))
        try await model.save(.make(3))
        try await checkpoint()
        try await store.close()
        return History(bytes: Array(try Data(contentsOf: url)), checkpoints: checkpoints)
    }

    @Test func damageIsEitherATornTailOrCorruptedWithTheFileUntouched() async throws {
        let history = try await makeHistory()
        let full = try #require(history.checkpoints.last?.contents)
        var random = SeededRandomNumberGenerator(seed: 77)
        var outcomes = (torn: 0, corrupted: 0)
        for number in 0..<240 {
            let damage = FileDamage.random(number, size: history.bytes.count, using: &random)
            var bytes = history.bytes
            damage.apply(to: &bytes)
            let url = directory.file("case-\(number).store")
            try Data(bytes).write(to: url)

            do {
                let store = try await FileRepository<FixtureEntity>(fileURL: url)
                let contents = try await store.fetchAll()
                try await store.close()
                switch damage {
                case .flip:
                    Issue.record("case \(number) (\(damage)): opened instead of throwing corrupted")
                case .truncate(let length):
                    #expect(contents == history.contents(keeping: length), "case \(number) (\(damage))")
                case .append:
                    #expect(contents == full, "case \(number) (\(damage))")
                }
                outcomes.torn += 1
            } catch let error as RepositoryError where error.code == .corrupted {
                #expect(
                    Array(try Data(contentsOf: url)) == bytes, "case \(number) (\(damage)): the file changed")
                #expect(error.location == url.path)
                #expect(error.offset != nil)
                outcomes.corrupted += 1
            }
        }
        #expect(outcomes.torn > 20 && outcomes.corrupted > 20, "\(outcomes)")
    }

    @Test func aTornTailIsCutOffAndTheStoreGoesOn() async throws {
        let history = try await makeHistory()
        let url = directory.file()
        let cut = history.bytes.count - 7
        try Data(history.bytes[..<cut]).write(to: url)
        let store = try await FileRepository<FixtureEntity>(fileURL: url)
        let kept = try #require(history.contents(keeping: cut))
        #expect(try await store.fetchAll() == kept)
        try await store.save(.make(500))
        try await store.close()
        let reopened = try await FileRepository<FixtureEntity>(fileURL: url)
        #expect(try await reopened.fetchAll() == kept + [.make(500)])
        try await reopened.close()
    }
}
