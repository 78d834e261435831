import Foundation

/// A fenced code block of a Markdown guide: what the reader is shown, to be found verbatim in
/// the source the tests compile.
public struct MarkdownSnippet: Sendable, Equatable {
    /// The guide, as failures name it (`Docs/HTTP.md`).
    public var file: String
    /// The block's place among the guide's blocks of its language, from 1.
    public var number: Int
    /// The line of the opening fence in the guide, from 1.
    public var line: Int
    /// The block's lines, without the fences and their common indentation; blank lines empty.
    public var lines: [String]

    /// Creates a snippet from its parts.
    public init(file: String, number: Int, line: Int, lines: [String]) {
        self.file = file
        self.number = number
        self.line = line
        self.lines = lines
    }

    /// Every block of `markdown` fenced as `language` (```` ```swift ````), in order, indented
    /// ones included (a block inside a list item).
    public static func blocks(in markdown: String, file: String, language: String = "swift")
        -> [MarkdownSnippet]
    {
        var snippets: [MarkdownSnippet] = []
        var open: (info: String, line: Int, lines: [String])?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = open {
                if trimmed == "```" {
                    if block.info == language {
                        snippets.append(
                            MarkdownSnippet(
                                file: file, number: snippets.count + 1, line: block.line,
                                lines: dedented(block.lines)))
                    }
                    open = nil
                } else {
                    block.lines.append(String(line))
                    open = block
                }
            } else if trimmed.hasPrefix("```") {
                let info = trimmed.dropFirst(3).split(separator: " ").first.map(String.init) ?? ""
                open = (info, index + 1, [])
            }
        }
        return snippets
    }

    /// `lines` without the indentation they all share; blank lines made empty.
    public static func dedented(_ lines: [some StringProtocol]) -> [String] {
        let indents = lines.filter { !$0.allSatisfy(\.isWhitespace) }.map {
            $0.prefix(while: { $0 == " " }).count
        }
        let common = indents.min() ?? 0
        return lines.map { $0.allSatisfy(\.isWhitespace) ? "" : String($0.dropFirst(common)) }
    }

    /// The block's leading `import` lines, which a source file holds at its top rather than
    /// where the rest of the block is.
    public var imports: [String] {
        Array(lines.prefix(while: { $0.hasPrefix("import ") }))
    }

    /// The block after its leading `import` lines and the blank lines that follow them.
    public var body: [String] {
        Array(lines.dropFirst(imports.count).drop(while: \.isEmpty))
    }
}

/// A Swift source file the snippet check searches.
public struct SnippetSource: Sendable {
    /// The file, as failures name it.
    public var path: String
    /// Its lines.
    public var lines: [String]

    /// A source named `path` holding `text`.
    public init(path: String, text: String) {
        self.path = path
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Reads every `.swift` file under `directory` (or the file itself), naming each by its
    /// path relative to `root`.
    public static func read(_ location: URL, relativeTo root: URL) throws -> [SnippetSource] {
        var files: [URL] = []
        if location.pathExtension == "swift" {
            files = [location]
        } else if let enumerator = FileManager.default.enumerator(
            at: location, includingPropertiesForKeys: nil)
        {
            files = enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        }
        return try files.sorted { $0.path < $1.path }.map { file in
            SnippetSource(
                path: String(
                    file.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)),
                text: try String(contentsOf: file, encoding: .utf8))
        }
    }
}

/// Where a snippet was found in the sources, or why it was not.
public enum SnippetSearchResult: Sendable, Equatable {
    /// Every line of the block, at one indentation, in `path` from `line` (from 1) on, and
    /// the file imports what the block imports.
    case found(path: String, line: Int)
    /// No source holds the block; the message names the guide, the block and its first line
    /// that no source has in that place.
    case missing(String)
}

extension MarkdownSnippet {
    /// Looks for the block in `sources`: its lines one after the other, each behind the same
    /// indentation (blank lines may hold spaces), and its `import` lines among the file's.
    public func search(in sources: [SnippetSource]) -> SnippetSearchResult {
        let body = body
        guard let first = body.first else { return .found(path: "", line: 0) }
        var closest: (source: SnippetSource, start: Int, matched: Int)?
        for source in sources {
            for start in source.lines.indices {
                let line = source.lines[start]
                guard line.hasSuffix(first), line.dropLast(first.count).allSatisfy({ $0 == " " }) else {
                    continue
                }
                let indent = String(line.dropLast(first.count))
                let matched = Self.matchingPrefix(of: body, in: source.lines, from: start, indent: indent)
                if matched == body.count, imports.allSatisfy(source.lines.contains) {
                    return .found(path: source.path, line: start + 1)
                }
                if matched > closest?.matched ?? -1 { closest = (source, start, matched) }
            }
        }
        return .missing(missingMessage(body: body, closest: closest))
    }

    private static func matchingPrefix(of body: [String], in lines: [String], from start: Int, indent: String)
        -> Int
    {
        var count = 0
        while count < body.count, start + count < lines.count {
            let line = lines[start + count]
            let expected = body[count]
            let same =
                expected.isEmpty ? line.allSatisfy { $0 == " " } : line == indent + expected
            guard same else { break }
            count += 1
        }
        return count
    }

    private func missingMessage(body: [String], closest: (source: SnippetSource, start: Int, matched: Int)?)
        -> String
    {
        let name = "\(file), Swift block \(number) (line \(line))"
        guard let closest else {
            return "\(name) is not compiled: no snippet source has its first line `\(body[0])`"
        }
        let docLine = line + 1 + (lines.count - body.count) + closest.matched
        if closest.matched == body.count {
            let missing = imports.filter { !closest.source.lines.contains($0) }
            return "\(name) is found in \(closest.source.path) at line \(closest.start + 1), which lacks "
                + missing.map { "`\($0)`" }.joined(separator: ", ")
        }
        let sourceIndex = closest.start + closest.matched
        let actual =
            sourceIndex < closest.source.lines.count ? closest.source.lines[sourceIndex] : "(end of file)"
        return "\(name) is not compiled verbatim: the closest match, \(closest.source.path) from line "
            + "\(closest.start + 1), first differs at the guide's line \(docLine):\n"
            + "  guide:  `\(body[closest.matched])`\n  source: `\(actual.trimmingCharacters(in: .whitespaces))`"
    }
}
