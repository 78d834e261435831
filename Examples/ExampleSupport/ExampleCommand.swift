import Foundation

/// The entry point every example shares: parses the command line, prints the usage for
/// `--help` or a bad argument (exit status 2), runs `body`, and turns a thrown error into
/// one readable line on standard error (exit status 1) rather than a crash.
///
/// ```swift
/// @main enum Mahsulot {
///     static func main() async {
///         await ExampleCommand.run(
///             example: "Mahsulot", dataDirectoryHelp: "keep mahsulotlar.journal in PATH"
///         ) { options in … }
///     }
/// }
/// ```
public enum ExampleCommand {
    /// Runs `body` with the options parsed from `arguments`.
    ///
    /// - Parameters:
    ///   - isolation: the caller's actor, which `body` runs on (leave the default).
    ///   - example: the example's name, for the usage text.
    ///   - arguments: the command line without the program name.
    ///   - dataDirectoryHelp: what `--data-dir PATH` keeps, for the usage text; `nil` when
    ///     the example keeps no local data, and then the flag is refused.
    ///   - body: the example, given the parsed options.
    public static func run(
        isolation: isolated (any Actor)? = #isolation, example: String,
        arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        dataDirectoryHelp: String?, body: (ExampleOptions) async throws -> Void
    ) async {
        let usage = ExampleOptions.usage(example: example, dataDirectoryHelp: dataDirectoryHelp)
        let options: ExampleOptions
        do {
            options = try ExampleOptions.parse(arguments, acceptsDataDirectory: dataDirectoryHelp != nil)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n\n\(usage)\n".utf8))
            exit(2)
        }
        if options.wantsHelp {
            print(usage)
            return
        }
        do {
            try await body(options)
        } catch {
            Console.flush()
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(1)
        }
    }
}
