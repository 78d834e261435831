import ExampleSupport
import Foundation
import Testing

@Suite struct ConsoleTests {
    @Test(arguments: [
        (0, "0"), (7, "7"), (999, "999"), (1_000, "1,000"), (45_716, "45,716"), (1_000_000, "1,000,000"),
        (-12_345, "-12,345"),
    ])
    func groupsThousands(number: Int, text: String) {
        #expect(Console.grouped(number) == text)
    }

    @Test(arguments: [
        (Duration.microseconds(840), "840 µs"), (.microseconds(12_300), "12.3 ms"),
        (.milliseconds(1_520), "1.52 s"),
    ])
    func formatsDurationsInTheUnitThatReadsBest(duration: Duration, text: String) {
        #expect(Console.format(duration) == text)
    }

    @Test(arguments: [(0, "0 changes"), (1, "1 change"), (3, "3 changes"), (1_200, "1,200 changes")])
    func countsWithTheNounInThePluralUnlessOne(count: Int, text: String) {
        #expect(Console.counted(count, "change") == text)
    }

    @Test func saysHowManyChangesWait() {
        #expect(Console.changesWaiting(0) == "no changes waiting")
        #expect(Console.changesWaiting(1) == "1 change waiting")
        #expect(Console.changesWaiting(3) == "3 changes waiting")
    }

    @Test func rendersTheBarInProportion() {
        let bar = ProgressBar(label: "Import", total: 45_716, redraws: false)
        #expect(bar.render(0) == "Import [..............................]   0%  0 / 45,716")
        #expect(bar.render(16_000) == "Import [##########....................]  34%  16,000 / 45,716")
        #expect(bar.render(45_716) == "Import [##############################] 100%  45,716 / 45,716")
        #expect(bar.render(99_999) == bar.render(45_716))
    }

    @Test func workspaceRemovesATemporaryDirectoryAndKeepsAGivenOne() throws {
        let temporary = try ExampleWorkspace(options: ExampleOptions(), example: "ConsoleTests")
        #expect(temporary.isTemporary)
        try Data("x".utf8).write(to: temporary.file("store"))
        try temporary.close()
        #expect(!FileManager.default.fileExists(atPath: temporary.directory.path))

        let kept = FileManager.default.temporaryDirectory.appendingPathComponent("kept-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: kept) }
        let given = try ExampleWorkspace(
            options: try ExampleOptions.parse(["--data-dir", kept.path]), example: "ConsoleTests")
        #expect(!given.isTemporary)
        try given.close()
        #expect(FileManager.default.fileExists(atPath: kept.path))
    }
}
