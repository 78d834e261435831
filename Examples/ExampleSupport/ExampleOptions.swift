import Foundation

/// The command line every example shares: `--offline`, `--api URL`, `--help`, and
/// `--data-dir PATH` for the examples that keep local data.
///
/// ```swift
/// let options = try ExampleOptions.parse(["--offline"])
/// options.offline  // true
/// ```
public struct ExampleOptions: Sendable, Equatable {
    /// Start with the simulated API switched off, so every read is served locally.
    public var offline = false
    /// A real REST collection to use as the remote instead of the simulated API.
    public var apiURL: URL?
    /// Where the example keeps its local data; a fresh temporary directory when `nil`.
    public var dataDirectory: URL?
    /// `--help` was given: print the usage and stop.
    public var wantsHelp = false

    /// Options with every flag at its default.
    public init() {}

    /// The text `--help` prints, and a usage error ends with.
    ///
    /// - Parameter dataDirectoryHelp: what `--data-dir PATH` keeps in this example; `nil`
    ///   when the example keeps no local data and does not take the flag.
    public static func usage(example: String, dataDirectoryHelp: String? = nil) -> String {
        let dataDirectory = dataDirectoryHelp == nil ? "" : " [--data-dir PATH]"
        var lines = [
            "usage: swift run \(example) [--offline] [--api URL]\(dataDirectory) [--help]",
            "",
            "  --offline        start with the simulated API switched off",
            "  --api URL        use a real REST collection as the remote (HTTPRepository)",
        ]
        if let dataDirectoryHelp { lines.append("  --data-dir PATH  \(dataDirectoryHelp)") }
        return lines.joined(separator: "\n")
    }

    /// Parses `arguments` (without the program name).
    ///
    /// - Parameter acceptsDataDirectory: whether the example takes `--data-dir PATH`.
    /// - Throws: ``ExampleUsageError`` naming the argument that is unknown, misses its
    ///   value, or is not a URL.
    public static func parse(_ arguments: [String], acceptsDataDirectory: Bool = true) throws
        -> ExampleOptions
    {
        var options = ExampleOptions()
        var remaining = arguments[...]
        func value(for flag: String) throws -> String {
            guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
                throw ExampleUsageError(message: "\(flag) needs a value")
            }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--offline": options.offline = true
            case "--help", "-h": options.wantsHelp = true
            case "--api":
                let text = try value(for: argument)
                guard let url = URL(string: text), let scheme = url.scheme,
                    ["http", "https"].contains(scheme)
                else { throw ExampleUsageError(message: "--api needs an http or https URL, not '\(text)'") }
                options.apiURL = url
            case "--data-dir" where acceptsDataDirectory:
                options.dataDirectory = URL(fileURLWithPath: try value(for: argument), isDirectory: true)
            case "--data-dir":
                throw ExampleUsageError(message: "--data-dir: this example keeps no local data")
            default:
                throw ExampleUsageError(message: "unknown argument '\(argument)'")
            }
        }
        return options
    }
}

/// A command line the example cannot run with; `message` says which argument and why.
public struct ExampleUsageError: Error, Equatable, CustomStringConvertible {
    /// What is wrong with the command line.
    public var message: String

    /// An error that says `message`.
    public init(message: String) {
        self.message = message
    }

    /// The message, for printing.
    public var description: String { message }
}
