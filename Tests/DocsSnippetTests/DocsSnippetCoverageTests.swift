import Foundation
import RepositoriesTestSupport
import Testing

/// Every ```` ```swift ```` block of README.md and Docs/*.md is compiled: it is found, verbatim
/// (after its common indentation), in the snippet files of this target, or in one of the test
/// files that run a guide's snippet where its context lives (``compiledElsewhere``). A new
/// snippet nobody compiles fails here, naming the guide, the block and its first line that no
/// source has.
@Suite struct DocsSnippetCoverageTests {
    /// Test files of other targets that hold a guide's snippets verbatim: Docs/HTTP.md's
    /// back-end presets, run against a recording transport, and Docs/Testing.md's TestStore
    /// test, which is the NumberFacts example's own.
    static let compiledElsewhere = [
        "Tests/RepositoriesHTTPTests/HTTPDocsSnippetTests.swift",
        "Tests/NumberFactsTests/SanagichFeatureTests.swift",
    ]

    /// The package's directory: the nearest one above this file holding Package.swift.
    static func packageDirectory() throws -> URL {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appending(path: "Package.swift").path) {
            guard directory.pathComponents.count > 1 else { throw PackageDirectoryNotFound() }
            directory.deleteLastPathComponent()
        }
        return directory
    }

    /// No Package.swift above this file: the sources were moved away from the package.
    struct PackageDirectoryNotFound: Error, CustomStringConvertible {
        var description: String { "no Package.swift above \(#filePath)" }
    }

    /// The guides whose snippets must be compiled: README.md and every Markdown file under
    /// Docs, the DocC catalogs' landing pages included.
    static func guides(in root: URL) throws -> [String] {
        let docs = root.appending(path: "Docs")
        guard let files = FileManager.default.enumerator(atPath: docs.path) else {
            throw GuidesNotFound(directory: docs.path)
        }
        let markdown = files.compactMap { $0 as? String }.filter { $0.hasSuffix(".md") }
        return ["README.md"] + markdown.sorted().map { "Docs/\($0)" }
    }

    /// The Docs directory cannot be read.
    struct GuidesNotFound: Error, CustomStringConvertible {
        var directory: String
        var description: String { "cannot list the guides in \(directory)" }
    }

    @Test func everySwiftSnippetOfTheGuidesIsCompiled() throws {
        let root = try Self.packageDirectory()
        var sources = try SnippetSource.read(root.appending(path: "Tests/DocsSnippetTests"), relativeTo: root)
        for path in Self.compiledElsewhere {
            sources += try SnippetSource.read(root.appending(path: path), relativeTo: root)
        }
        let guides = try Self.guides(in: root)
        #expect(guides.count > 5, "Docs/ holds fewer guides than expected: \(guides)")
        var checked = 0
        for guide in guides {
            let markdown = try String(contentsOf: root.appending(path: guide), encoding: .utf8)
            for snippet in MarkdownSnippet.blocks(in: markdown, file: guide) {
                checked += 1
                if case .missing(let message) = snippet.search(in: sources) {
                    Issue.record(Comment(rawValue: message))
                }
            }
        }
        #expect(checked > 50, "only \(checked) Swift blocks found in \(guides)")
    }
}
