import Foundation

/// Runs `body`, which blocks (a read from a child's pipe, a wait for a process), on a thread
/// of its own, and resumes the caller when it returns: the caller's cooperative thread stays
/// free for the other tasks meanwhile. A blocked cooperative thread is one of two on a
/// two-core machine, and tests elsewhere in the run then miss their deadlines.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// Runs `body`, which blocks and cannot throw, on a thread of its own; see the throwing form.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

extension Process {
    /// Waits for the process to exit on a thread of its own. Never call `waitUntilExit()` on
    /// the cooperative pool: Foundation learns of a child's exit on a dispatch queue that
    /// shares the pool's threads, so once every pool thread waits that way (two, on a two-core
    /// machine), none is left to notice the exits, and the whole test run stops.
    public func waitUntilExitOffThePool() async {
        await offThePool { self.waitUntilExit() }
    }
}

/// One child process started at a time in this test process.
private let spawning = NSLock()

extension Process {
    /// Starts the process while no other thread of this test process starts one through
    /// here: CI saw Foundation's `Process.run()` crash in a `memcpy` while the suite started
    /// children from several tests at once.
    public func runAlone() throws {
        spawning.lock()
        defer { spawning.unlock() }
        try run()
    }
}
