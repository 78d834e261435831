import Foundation
import RepositoriesTestSupport
import Testing

/// The guides' manifest snippets are Swift only `PackageDescription` compiles, so each is put
/// in a `Package.swift` of its own and loaded by `swift package dump-package`, which compiles
/// it and checks its targets' product dependencies name a declared package.
@Suite struct ManifestSnippetTests {
    @Test(arguments: [GettingStartedSnippets.manifest, HTTPSnippets.manifest, TestingSnippets.manifest])
    func theSnippetIsPartOfAValidManifest(_ snippet: ManifestSnippet) async throws {
        let directory = try TemporaryDirectory()
        let manifest =
            "// swift-tools-version: 6.0\nimport PackageDescription\n\nlet package = "
            + snippet.manifest(snippet.fragment) + "\n"
        try manifest.write(to: directory.file("Package.swift"), atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", directory.url.path, "dump-package"]
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.runAlone()
        // `swift package` takes seconds: read and wait on a thread of our own, not the pool's.
        let output = await offThePool {
            String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        await process.waitUntilExitOffThePool()
        #expect(
            process.terminationStatus == 0,
            "`swift package dump-package` refused the manifest of \(snippet.guide):\n\(manifest)\n\(output)")
    }
}
