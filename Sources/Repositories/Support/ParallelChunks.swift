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
}
