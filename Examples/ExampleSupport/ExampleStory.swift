/// A story an example tells: opened in the example's workspace, told, then closed, whether
/// or not telling it threw.
///
/// ```swift
/// @main enum SharedListExample {
///     static func main() async {
///         await ExampleCommand.run(SharedListStory.self, example: "SharedList", dataDirectoryHelp: "…")
///     }
/// }
/// ```
@MainActor public protocol ExampleStory: Sendable {
    /// Opens what the story needs (the device's files, the remote `options` ask for) in
    /// `workspace`.
    init(options: ExampleOptions, workspace: ExampleWorkspace) async throws
    /// Tells the story, printing each step.
    func tell() async throws
    /// Closes what the story opened.
    func close() async throws
}

extension ExampleCommand {
    /// Runs `story` as an example's whole program: parses the command line as
    /// ``run(isolation:example:arguments:dataDirectoryHelp:body:)`` does, opens the
    /// example's workspace, then tells the story, closing the story and then the workspace
    /// whether or not it threw.
    ///
    /// - Parameters:
    ///   - story: the example's story.
    ///   - example: the example's name, for the usage text and the workspace.
    ///   - dataDirectoryHelp: what `--data-dir PATH` keeps, for the usage text.
    @MainActor public static func run<Story: ExampleStory>(
        _ story: Story.Type, example: String, dataDirectoryHelp: String
    ) async {
        await run(example: example, dataDirectoryHelp: dataDirectoryHelp) { options in
            let workspace = try ExampleWorkspace(options: options, example: example)
            try await withCleanup {
                let story = try await Story(options: options, workspace: workspace)
                try await withCleanup {
                    try await story.tell()
                } cleanup: {
                    try await story.close()
                }
            } cleanup: {
                try workspace.close()
            }
        }
    }
}
