import Foundation
import Synchronization
import Testing

@testable import Repositories

@Suite struct ParallelChunksTests {
    struct Failed: Error, Equatable {
        var chunk: Range<Int>
    }

    @Test(arguments: [0, 1, 2_047, 2_048, 4_095, 4_096, 10_001, 100_000])
    func theChunksCoverEveryIndexOnceInOrder(count: Int) throws {
        let ranges = ParallelChunks.ranges(count: count, minimumChunk: 2_048)
        #expect(ranges.flatMap { Array($0) } == Array(0..<count))
        #expect(ranges.count <= max(1, ProcessInfo.processInfo.activeProcessorCount))
        if ranges.count > 1 { #expect(ranges.allSatisfy { $0.count >= 2_048 }) }
        let sums = try ParallelChunks.map(count: count, minimumChunk: 2_048) { $0.reduce(0, +) }
        #expect(sums.reduce(0, +) == (0..<count).reduce(0, +))
    }

    @Test func theFirstFailingChunkInOrderIsThrownAfterEveryChunkRan() throws {
        let ranges = ParallelChunks.ranges(count: 100_000, minimumChunk: 1)
        try #require(ranges.count > 1, "this machine has one core: nothing runs at once")
        let error = #expect(throws: Failed.self) {
            _ = try ParallelChunks.map(count: 100_000, minimumChunk: 1) { chunk in
                if chunk.lowerBound > 0 { throw Failed(chunk: chunk) }
                return chunk.count
            }
        }
        #expect(error == Failed(chunk: ranges[1]))
    }

    @Test(arguments: [0, 1, 999, 1_000, 1_001, 57_123])
    func eachChunkIsConsumedOnceInOrder(count: Int) {
        var consumed: [Range<Int>] = []
        ParallelChunks.forEachInOrder(count: count, chunkSize: 1_000) { chunk in
            // Later chunks finish first now and then: consumption still waits for order.
            if chunk.lowerBound % 3_000 == 0 { Thread.sleep(forTimeInterval: 0.001) }
            return chunk.reduce(0, +)
        } consume: { chunk, sum in
            #expect(sum == chunk.reduce(0, +))
            consumed.append(chunk)
            return true
        }
        #expect(consumed.flatMap { Array($0) } == Array(0..<count))
        #expect(consumed.allSatisfy { $0.count <= 1_000 })
    }

    @Test func stoppingSkipsTheChunksNotBegunAndReturnsOnceTheRunningOnesFinish() {
        let chunks = GatedChunks()
        var consumed = 0
        ParallelChunks.forEachInOrder(count: 1_000_000, chunkSize: 1_000, produce: chunks.produce) { _, _ in
            consumed += 1
            guard consumed == GatedChunks.open else { return true }
            chunks.release()
            return false
        }
        #expect(consumed == GatedChunks.open)
        chunks.expectNoneRunningAndTheRestSkipped()
    }

    @Test func anErrorConsumingStopsAndIsRethrown() {
        let chunks = GatedChunks()
        let error = #expect(throws: Failed.self) {
            try ParallelChunks.forEachInOrder(count: 1_000_000, chunkSize: 1_000, produce: chunks.produce) {
                chunk, _ in
                guard chunk.upperBound == GatedChunks.open * 1_000 else { return true }
                chunks.release()
                throw Failed(chunk: chunk)
            }
        }
        #expect(error == Failed(chunk: 2_000..<3_000))
        chunks.expectNoneRunningAndTheRestSkipped()
    }
}

/// Chunks whose production holds every chunk after the first ``open`` until ``release()``,
/// then takes a millisecond each: the consumer stops (or throws) right after it releases
/// them, so only a few of the 1,000 chunks can begin before the stop, however the threads
/// are scheduled, unless stopping does not skip them.
final class GatedChunks: Sendable {
    /// How many chunks are produced without waiting.
    static let open = 3
    private let gate = DispatchSemaphore(value: 0)
    private let counts = Mutex((begun: 0, running: 0))

    var produce: @Sendable (Range<Int>) -> Int {
        { [self] chunk in
            counts.withLock {
                $0.begun += 1
                $0.running += 1
            }
            if chunk.lowerBound >= Self.open * 1_000 {
                gate.wait()
                gate.signal()  // and the next waiting worker
                Thread.sleep(forTimeInterval: 0.001)
            }
            counts.withLock { $0.running -= 1 }
            return chunk.count
        }
    }

    func release() { gate.signal() }

    /// No chunk is running after the call returned, and most chunks never began.
    func expectNoneRunningAndTheRestSkipped() {
        let (begun, running) = counts.withLock { ($0.begun, $0.running) }
        #expect(running == 0, "a chunk was still being produced after the call returned")
        #expect(begun < 500, "\(begun) of 1,000 chunks began: stopping did not skip the rest")
    }
}
