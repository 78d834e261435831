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
    /// Starts the process, one at a time in this test process, once it has checked that the
    /// test process holds fewer than 1,000 open descriptors.
    ///
    /// Foundation's `Process.run()` on Linux lists `/proc/self/fd` to close every descriptor
    /// in the child, copying each entry's whole 256-byte name. Past about 1,360 descriptors
    /// the entries fill glibc's 32 KB listing buffer, and the copy of one near its end can
    /// read into an unmapped page: the whole test run crashes (CI saw it twice, in a
    /// `memmove`). swift-corelibs-foundation fixed it in pull request 5472, which no 6.3
    /// release has. The test binary caps how many test cases run at once (`TestRunWidth`),
    /// which keeps the run near 130 descriptors; a run that nears the limit anyway fails here,
    /// saying so, instead of crashing at random. Every child the tests start goes through here.
    ///
    /// - Throws: ``TooManyOpenDescriptors``, with nothing started; what `run()` throws.
    public func runAlone() throws {
        spawning.lock()
        defer { spawning.unlock() }
        #if os(Linux)
            let open = openDescriptorCount()
            guard open < TooManyOpenDescriptors.limit else { throw TooManyOpenDescriptors(count: open) }
        #endif
        try run()
    }
}

/// A child process was not started: the test process held too many open descriptors for
/// Foundation's `Process.run()` to start it safely on Linux (see `runAlone()`).
public struct TooManyOpenDescriptors: Error, CustomStringConvertible {
    /// The count from which a child is refused, well below the 1,360 past which it can crash.
    public static let limit = 1_000
    /// How many descriptors the test process held.
    public let count: Int

    /// What happened and what to do.
    public var description: String {
        "The test process holds \(count) open descriptors, and Foundation's Process.run() on Linux "
            + "can crash past about 1,360: close what the tests open, or run fewer test cases at once "
            + "(SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH, which Swift 6.3's testing library reads; "
            + "the test binary sets four per core, at most 32, unless you set it)"
    }
}

#if os(Linux)
    /// How many descriptors this process holds open: the entries of `/proc/self/fd`, less
    /// `.`, `..` and the listing's own. Counted without reading the entries' names; 0 when
    /// `/proc` cannot be read (Foundation then closes descriptors without listing them).
    private func openDescriptorCount() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var entries = 0
        while readdir(directory) != nil { entries += 1 }
        return max(entries - 3, 0)
    }
#endif
