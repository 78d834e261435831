/// Runs `body`, then `cleanup`, whether or not `body` threw: the `defer` of async code.
///
/// When `body` throws, its error is the one rethrown (the cause matters more than a failed
/// cleanup after it); when only `cleanup` throws, its error is.
///
/// ```swift
/// let story = try await MahsulotStory(options: options, workspace: workspace)
/// try await withCleanup { try await story.tell() } cleanup: { try await story.close() }
/// ```
public func withCleanup<Result>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result,
    cleanup: () async throws -> Void
) async throws -> Result {
    let result: Result
    do {
        result = try await body()
    } catch {
        do {
            try await cleanup()
        } catch let cleanupError {
            print("(cleaning up after the error below also failed: \(cleanupError))")
        }
        throw error
    }
    try await cleanup()
    return result
}
