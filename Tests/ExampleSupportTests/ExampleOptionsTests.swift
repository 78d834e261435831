import ExampleSupport
import Foundation
import Testing

@Suite struct ExampleOptionsTests {
    @Test func noArgumentsMeansOnlineWithATemporaryWorkspace() throws {
        #expect(try ExampleOptions.parse([]) == ExampleOptions())
    }

    @Test func readsEveryFlag() throws {
        let options = try ExampleOptions.parse(
            ["--offline", "--api", "https://api.example.com/v1", "--data-dir", "/tmp/store"])
        #expect(options.offline)
        #expect(options.apiURL == URL(string: "https://api.example.com/v1"))
        #expect(options.dataDirectory?.path == "/tmp/store")
        #expect(!options.wantsHelp)
    }

    @Test func helpIsAFlagNotAnError() throws {
        #expect(try ExampleOptions.parse(["--help"]).wantsHelp)
        #expect(try ExampleOptions.parse(["-h"]).wantsHelp)
    }

    @Test(arguments: [
        (["--verbose"], "unknown argument '--verbose'"),
        (["--api"], "--api needs a value"),
        (["--api", "--offline"], "--api needs a value"),
        (["--api", "ftp://example.com"], "--api needs an http or https URL, not 'ftp://example.com'"),
        (["--data-dir"], "--data-dir needs a value"),
        (["--records", "10"], "unknown argument '--records'"),
    ])
    func rejectsABadCommandLineByNamingTheArgument(arguments: [String], message: String) {
        #expect(throws: ExampleUsageError(message: message)) { try ExampleOptions.parse(arguments) }
    }

    @Test func anExampleWithoutLocalDataRefusesADataDirectory() throws {
        #expect(throws: ExampleUsageError(message: "--data-dir: this example keeps no local data")) {
            try ExampleOptions.parse(["--data-dir", "/tmp/x"], acceptsDataDirectory: false)
        }
        #expect(try ExampleOptions.parse(["--offline"], acceptsDataDirectory: false).offline)
    }

    @Test func usageSaysWhatTheDataDirectoryKeepsOrLeavesItOut() {
        let usage = ExampleOptions.usage(
            example: "Meteorite", dataDirectoryHelp: "keep meteorites.sqlite in PATH")
        #expect(
            usage.hasPrefix("usage: swift run Meteorite [--offline] [--api URL] [--data-dir PATH] [--help]"))
        #expect(usage.contains("  --data-dir PATH  keep meteorites.sqlite in PATH"))
        let without = ExampleOptions.usage(example: "NumberFacts")
        #expect(without.hasPrefix("usage: swift run NumberFacts [--offline] [--api URL] [--help]"))
        #expect(!without.contains("--data-dir"))
    }
}
