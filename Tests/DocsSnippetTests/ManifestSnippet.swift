import Testing

/// A piece of a `Package.swift` that a guide shows (a dependency list, a target), kept
/// verbatim in `fragment`, and the manifest `manifest(fragment)` that holds it.
struct ManifestSnippet: Sendable, CustomTestStringConvertible {
    /// The guide that shows it.
    var guide: String
    /// The snippet, as the guide shows it.
    var fragment: String
    /// The expression after `let package =` around the fragment.
    var manifest: @Sendable (String) -> String

    var testDescription: String { guide }
}
