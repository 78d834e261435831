import Foundation

/// The command line every example shares: `--offline`, `--api URL`, `--data-dir PATH`,
/// `--help`, plus any `--name value` flags an example declares.
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
    /// Where the example keeps its local store; a fresh temporary directory when `nil`.
    public var dataDirectory: URL?
    /// `--help` was given: print the usage and stop.
    public var wantsHelp = false
    /// The values of the extra `--name value` flags the example declared, by name.
    public var values: [String: String] = [:]

    /// Options with every flag at its default.
    public init() {}

    /// The text `--help` prints, and a usage error ends with.
    public static func usage(example: String, extraFlags: [String: String] = [:]) -> String {
        var lines = [
            "usage: swift run \(example) [--offline] [--api URL] [--data-dir PATH] [--help]",
            "",
            "  --offline        start with the simulated API switched off",
            "  --api URL        use a real REST collection as the remote (HTTPRepository)",
            "  --data-dir PATH  keep the local store in PATH (default: a temporary directory)",
        ]
        for (flag, help) in extraFlags.sorted(by: { $0.key < $1.key }) {
            lines.append("  --\(flag) VALUE".padding(toLength: 19, withPad: " ", startingAt: 0) + help)
        }
        return lines.joined(separator: "\n")
    }

    /// Parses `arguments` (without the program name).
    ///
    /// - Parameter valueFlags: the names (without `--`) of extra flags that take a value.
    /// - Throws: ``ExampleUsageError`` naming the argument that is unknown, misses its
    ///   value, or is not a URL.
    public static func parse(_ arguments: [String], valueFlags: Set<String> = []) throws -> ExampleOptions {
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
            case "--data-dir":
                options.dataDirectory = URL(fileURLWithPath: try value(for: argument), isDirectory: true)
            case let flag where flag.hasPrefix("--") && valueFlags.contains(String(flag.dropFirst(2))):
                options.values[String(flag.dropFirst(2))] = try value(for: flag)
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
