import RepositoriesTestSupport
import Testing

/// The snippet check itself: what counts as a block, and what counts as found.
@Suite struct MarkdownSnippetTests {
    let guide = """
        Text.

        ```swift
        import Repositories

        let a = 1
        ```

        - A list item:

          ```swift
          do {
              try work()
          }
          ```

        ```bash
        swift test
        ```

        ```swift title="Second"
        let b = 2
        ```
        """

    @Test func findsEverySwiftBlockIndentedOrNotAndSkipsOthers() {
        let blocks = MarkdownSnippet.blocks(in: guide, file: "Guide.md")
        #expect(blocks.map(\.number) == [1, 2, 3])
        #expect(blocks.map(\.line) == [3, 11, 21])
        #expect(blocks[0].lines == ["import Repositories", "", "let a = 1"])
        #expect(blocks[0].imports == ["import Repositories"])
        #expect(blocks[0].body == ["let a = 1"])
        #expect(blocks[1].lines == ["do {", "    try work()", "}"])
        #expect(blocks[2].lines == ["let b = 2"])
    }

    @Test func aBlockIsFoundAtAnyOneIndentationInAFileThatImportsWhatItImports() {
        let blocks = MarkdownSnippet.blocks(in: guide, file: "Guide.md")
        let source = SnippetSource(
            path: "Snippets.swift",
            text: """
                import Repositories

                enum Snippets {
                    static func first() {
                        let a = 1
                    }

                    static func second() throws {
                        do {
                            try work()
                        }
                    }
                }
                """)
        #expect(blocks[0].search(in: [source]) == .found(path: "Snippets.swift", line: 5))
        #expect(blocks[1].search(in: [source]) == .found(path: "Snippets.swift", line: 9))
    }

    @Test func aBlockWithALineChangedIsMissingAndTheMessageNamesTheLine() {
        let block = MarkdownSnippet.blocks(in: guide, file: "Guide.md")[1]
        let source = SnippetSource(path: "Snippets.swift", text: "do {\n    try work(harder: true)\n}")
        #expect(
            block.search(in: [source])
                == .missing(
                    """
                    Guide.md, Swift block 2 (line 11) is not compiled verbatim: the closest match, \
                    Snippets.swift from line 1, first differs at the guide's line 13:
                      guide:  `    try work()`
                      source: `try work(harder: true)`
                    """))
    }

    @Test func aBlockIndentedUnevenlyOrMissingAnImportIsMissing() {
        let blocks = MarkdownSnippet.blocks(in: guide, file: "Guide.md")
        let uneven = SnippetSource(path: "Uneven.swift", text: "    do {\n    try work()\n    }")
        #expect(blocks[1].search(in: [uneven]) != .found(path: "Uneven.swift", line: 1))
        let noImport = SnippetSource(path: "NoImport.swift", text: "let a = 1")
        #expect(
            blocks[0].search(in: [noImport])
                == .missing(
                    "Guide.md, Swift block 1 (line 3) is found in NoImport.swift at line 1, which lacks "
                        + "`import Repositories`"))
        #expect(
            blocks[2].search(in: [noImport])
                == .missing(
                    "Guide.md, Swift block 3 (line 21) is not compiled: no snippet source has its first line `let b = 2`"
                ))
    }
}
