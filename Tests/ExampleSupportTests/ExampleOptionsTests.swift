import ExampleSupport
import Foundation
import Testing

@Suite struct ExampleOptionsTests {
    @Test func noArgumentsMeansOnlineWithATemporaryWorkspace() throws {
        #expect(try ExampleOptions.parse([]) == ExampleOptions())
    }

    @Test func readsEveryFlag() throws {
        let options = try ExampleOptions.parse(
            [
                "--offline", "--api", "https://api.example.com/v1", "--data-dir", "/tmp/store", "--records",
                "10",
            ],
            valueFlags: ["records"])
        #expect(options.offline)
        #expect(options.apiURL == URL(string: "https://api.example.com/v1"))
        #expect(options.dataDirectory?.path == "/tmp/store")
        #expect(options.values == ["records": "10"])
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
        (["--records"], "unknown argument '--records'"),
    ])
    func rejectsABadCommandLineByNamingTheArgument(arguments: [String], message: String) {
        #expect(throws: ExampleUsageError(message: message)) { try ExampleOptions.parse(arguments) }
    }

    @Test func usageListsTheSharedAndTheExtraFlags() {
        let usage = ExampleOptions.usage(example: "Meteorite", extraFlags: ["records": "how many to import"])
        #expect(usage.hasPrefix("usage: swift run Meteorite [--offline]"))
        #expect(usage.contains("--records VALUE  how many to import"))
        #expect(usage.contains("--api URL"))
    }
}
