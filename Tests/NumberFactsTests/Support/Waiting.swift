import Testing

/// Yields until `condition` turns false, or until `timeout` of real time has passed: a guard
/// so that a test that waits for something that never happens fails instead of hanging.
/// It asserts nothing about how long the wait took.
///
/// - Returns: `true` when `condition` turned false, `false` when the wait gave up.
@MainActor
func yieldWhile(timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while condition() {
        if ContinuousClock.now >= deadline { return false }
        // A short sleep, not `Task.yield()`: a loop of yields on the main actor keeps a core
        // busy for the whole wait, which on a two-core machine slows every other test and the
        // very effect waited for (CI runs saw these waits pass 30 s that way).
        do {
            try await Task.sleep(for: .milliseconds(2))
        } catch {
            return !condition()
        }
    }
    return true
}
