import ExampleSupport
import Foundation
import Testing

@testable import Person

/// The run's UserDefaults suite: its file is where `fileURL` says while it holds people, and
/// gone once a temporary suite is closed; each of those is checked, not assumed.
@Suite struct PersonDefaultsTests {
    private func temporarySuite() throws -> PersonDefaults {
        try PersonDefaults(suiteName: "RepositoriesPersonTests.\(UUID().uuidString)", isTemporary: true)
    }

    @Test func synchronizeFindsTheFileAndCloseRemovesIt() throws {
        let suite = try temporarySuite()
        suite.defaults.set(Data("[]".utf8), forKey: "person")

        try suite.synchronize()
        #expect(FileManager.default.fileExists(atPath: suite.fileURL.path))

        try suite.close()
        #expect(!FileManager.default.fileExists(atPath: suite.fileURL.path))
    }

    /// Nothing was written, so there is no file: the check says so instead of letting the
    /// run later claim that a file it never saw is gone.
    @Test func synchronizeThrowsWhenThereIsNoFile() throws {
        let suite = try temporarySuite()
        defer { suite.defaults.removePersistentDomain(forName: suite.suiteName) }

        let failure = #expect(throws: StoryFailure.self) { try suite.synchronize() }

        #expect(failure?.description.hasPrefix("UserDefaults wrote no file for the suite") == true)
    }

    @Test func closeKeepsTheSuiteUsedWithDataDir() throws {
        let name = "RepositoriesPersonTests.\(UUID().uuidString)"
        let suite = try PersonDefaults(suiteName: name, isTemporary: false)
        defer { suite.defaults.removePersistentDomain(forName: name) }
        suite.defaults.set(Data("[]".utf8), forKey: "person")
        try suite.synchronize()

        try suite.close()

        #expect(FileManager.default.fileExists(atPath: suite.fileURL.path))
        #expect(suite.defaults.data(forKey: "person") == Data("[]".utf8))
    }
}
