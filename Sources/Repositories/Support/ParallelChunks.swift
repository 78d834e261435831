import Dispatch
import Foundation
import Synchronization

/// Splits work over `0..<count` into chunks run on every core, for decoding that is large
/// enough to pay for it (a store's open, a `fetchAll` of many rows).
package enum ParallelChunks {
    /// The chunks `0..<count` is split into: one when the work is small or the machine has
    /// one core; otherwise one per core, each at least `minimumChunk` long.
    package static func ranges(count: Int, minimumChunk: Int) -> [Range<Int>] {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let chunks = max(1, min(cores, count / max(minimumChunk, 1)))
        guard chunks > 1 else { return count == 0 ? [] : [0..<count] }
        let size = (count + chunks - 1) / chunks
        return stride(from: 0, to: count, by: size).map { $0..<min($0 + size, count) }
    }

    /// Calls `body` with each chunk of `0..<count`, the chunks at once on every core, and
    /// returns the results in the chunks' order.
    ///
    /// - Throws: the error of the first chunk (in order) whose `body` threw; the other
    ///   chunks still ran.
    package static func map<Result: Sendable>(
        count: Int, minimumChunk: Int, _ body: @Sendable (Range<Int>) throws -> Result
    ) throws -> [Result] {
        let ranges = ranges(count: count, minimumChunk: minimumChunk)
        if ranges.count <= 1 { return try ranges.map(body) }
        let results = Mutex<[Swift.Result<Result, any Error>?]>(Array(repeating: nil, count: ranges.count))
        DispatchQueue.concurrentPerform(iterations: ranges.count) { chunk in
            let result = Swift.Result { try body(ranges[chunk]) }
            results.withLock { $0[chunk] = result }
        }
        // concurrentPerform returns after every chunk ran, so every slot is filled.
        return try results.withLock { $0 }.map { try $0!.get() }
    }

    /// Computes `produce` for each chunk of `chunkSize` elements of `0..<count` on every
    /// core, and hands each result to `consume` on the calling thread, in the chunks' order,
    /// as soon as it and every chunk before it are ready: the caller's work on the first
    /// chunks (inserting them into an index) overlaps the computing of the later ones.
    ///
    /// `consume` returns `false` to stop: chunks not yet begun are skipped. The call returns
    /// once every chunk begun has finished, so nothing `produce` captured is used after it.
    /// The calling thread produces the next chunk itself when no worker has taken it yet, so
    /// the call finishes even if the global queue runs none of its workers; otherwise it
    /// blocks while it waits for a chunk: call it where blocking is expected (a store's open).
    ///
    /// - Throws: what `consume` throws, after stopping as `false` would.
    package static func forEachInOrder<Result: Sendable>(
        count: Int, chunkSize: Int, produce: @escaping @Sendable (Range<Int>) -> Result,
        consume: (Range<Int>, Result) throws -> Bool
    ) rethrows {
        let size = max(chunkSize, 1)
        let ranges = stride(from: 0, to: count, by: size).map { $0..<min($0 + size, count) }
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, ranges.count)
        guard workers > 1 else {
            for range in ranges where try !consume(range, produce(range)) { return }
            return
        }
        let chunks = OrderedChunks<Result>(count: ranges.count)
        for _ in 0..<workers {
            DispatchQueue.global().async {
                while let chunk = chunks.claim() { chunks.finish(chunk, with: produce(ranges[chunk])) }
            }
        }
        defer {
            // Waits for the chunks workers are producing, never for a worker that has not
            // started: the global queue's threads may be the ones the caller's task pool
            // runs on, all of them busy, and one such wait stalls every task for about a
            // second until the queue adds a thread. A worker that starts later finds the
            // chunks stopped and ends at once.
            chunks.stop()
            chunks.waitForChunksInProgress()
        }
        for chunk in ranges.indices {
            // A chunk no worker has taken yet is produced here: the call goes on even when
            // the global queue has no thread to spare.
            let result = chunks.claim(chunk) ? produce(ranges[chunk]) : chunks.wait(for: chunk)
            guard try consume(ranges[chunk], result) else { return }
        }
    }
}

/// The chunks of ``ParallelChunks/forEachInOrder(count:chunkSize:produce:consume:)``: which
/// one a worker takes next, and each one's result once it is ready.
private final class OrderedChunks<Result: Sendable>: Sendable {
    private struct State {
        var next = 0
        var stopped = false
        var results: [Result?]
    }

    private let state: Mutex<State>
    private let ready: [DispatchSemaphore]

    init(count: Int) {
        state = Mutex(State(results: Array(repeating: nil, count: count)))
        ready = (0..<count).map { _ in DispatchSemaphore(value: 0) }
    }

    /// The chunks a worker has taken and not finished.
    private let inProgress = DispatchGroup()

    /// The next chunk nobody has taken, for a worker, or `nil` when there is none or the
    /// caller stopped. The worker then produces it and calls ``finish(_:with:)``.
    func claim() -> Int? {
        state.withLock { state in
            guard !state.stopped, state.next < state.results.count else { return nil }
            defer { state.next += 1 }
            inProgress.enter()
            return state.next
        }
    }

    /// Blocks until no worker is producing a chunk; call it after ``stop()``.
    func waitForChunksInProgress() {
        inProgress.wait()
    }

    /// Takes `chunk` for the caller when it is the next one nobody has taken.
    func claim(_ chunk: Int) -> Bool {
        state.withLock { state in
            guard !state.stopped, state.next == chunk else { return false }
            state.next += 1
            return true
        }
    }

    /// A worker's result for the chunk it took.
    func finish(_ chunk: Int, with result: sending Result) {
        state.withLock { $0.results[chunk] = result }
        ready[chunk].signal()
        inProgress.leave()
    }

    /// Blocks until `chunk`, which a worker has taken or will take, is ready; its result.
    func wait(for chunk: Int) -> Result {
        ready[chunk].wait()
        return state.withLock { state in
            defer { state.results[chunk] = nil }
            return state.results[chunk]!
        }
    }

    /// Lets no worker take another chunk.
    func stop() {
        state.withLock { $0.stopped = true }
    }
}
