import Foundation
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
}
