import Dispatch
import Foundation
import Synchronization

extension EntityCodec {
    /// A record of ``decodeAll(_:from:ranges:minimumPerThread:)`` that did not decode.
    package struct RecordDecodingFailure: Error {
        /// The record's index in the ranges given.
        package var index: Int
        /// What decoding it threw.
        package var underlying: any Error
    }

    /// Decodes the record in each of `ranges` of `bytes`, in order, on every core when there
    /// are at least `minimumPerThread` records per core.
    ///
    /// The ranges are split into contiguous chunks that threads take in turn; each chunk
    /// decodes into an array of its own, reserved at its exact size, and the chunks are
    /// joined in order. Records after a failure are not decoded.
    ///
    /// - Throws: ``RecordDecodingFailure`` for the lowest-indexed record that failed.
    /// - Complexity: O(*n*) work, spread over the cores.
    package func decodeAll<T: Decodable>(
        _ type: T.Type, from bytes: UnsafeRawBufferPointer, ranges: [Range<Int>], minimumPerThread: Int = 256
    ) throws -> [T] {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let firstFailure = _LowestIndex()
        guard cores > 1, ranges.count >= minimumPerThread * 2 else {
            return try decodeChunk(
                T.self, from: bytes, ranges: ranges, indices: ranges.indices, stop: firstFailure)
        }
        // A few chunks per core, so a core that finishes early takes another.
        let chunkCount = min(cores * 4, ranges.count / max(minimumPerThread / 4, 1))
        let chunkSize = (ranges.count + chunkCount - 1) / chunkCount
        let slots = UnsafeMutableBufferPointer<Result<[T], RecordDecodingFailure>?>.allocate(
            capacity: chunkCount)
        slots.initialize(repeating: nil)
        defer {
            _ = slots.deinitialize()
            slots.deallocate()
        }
        let work = _ConcurrentWork { chunk in
            let indices = chunk * chunkSize..<min(ranges.count, (chunk + 1) * chunkSize)
            do throws(RecordDecodingFailure) {
                slots[chunk] = .success(
                    try decodeChunk(T.self, from: bytes, ranges: ranges, indices: indices, stop: firstFailure)
                )
            } catch {
                firstFailure.lower(to: error.index)
                slots[chunk] = .failure(error)
            }
        }
        DispatchQueue.concurrentPerform(iterations: chunkCount) { work.run($0) }
        var decoded: [T] = []
        decoded.reserveCapacity(ranges.count)
        for chunk in slots {
            switch chunk {
            case .success(let values)?: decoded.append(contentsOf: values)
            case .failure(let failure)?: throw failure
            case nil: break  // every chunk stores its result before concurrentPerform returns
            }
        }
        // A chunk stops early only after a failure in an earlier chunk, which was thrown above.
        return decoded
    }

    /// Decodes the records at `indices`, stopping when `stop` names a failure before them.
    private func decodeChunk<T: Decodable>(
        _ type: T.Type, from bytes: UnsafeRawBufferPointer, ranges: [Range<Int>], indices: Range<Int>,
        stop: _LowestIndex
    ) throws(RecordDecodingFailure) -> [T] {
        var values: [T] = []
        values.reserveCapacity(indices.count)
        for index in indices {
            if stop.value < index { break }
            let range = ranges[index]
            do {
                guard range.lowerBound >= 0, range.upperBound <= bytes.count else {
                    throw RepositoryError(
                        .decodingFailed,
                        reason: "A record's range \(range) lies outside the \(bytes.count) bytes given",
                        record: "\(index)")
                }
                values.append(try decode(T.self, from: UnsafeRawBufferPointer(rebasing: bytes[range])))
            } catch {
                throw RecordDecodingFailure(index: index, underlying: error)
            }
        }
        return values
    }
}

/// The lowest index of a failed record so far, shared by the threads of
/// ``EntityCodec/decodeAll(_:from:ranges:minimumPerThread:)``.
private final class _LowestIndex: Sendable {
    private let atomic = Atomic<Int>(.max)

    var value: Int { atomic.load(ordering: .relaxed) }

    /// Lowers the index to `candidate` if it is lower.
    func lower(to candidate: Int) {
        var current = atomic.load(ordering: .relaxed)
        while candidate < current {
            let (exchanged, original) = atomic.compareExchange(
                expected: current, desired: candidate, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}

/// One iteration's work for `DispatchQueue.concurrentPerform`, which wants a `Sendable`
/// closure: each iteration writes only its own result slot, and the caller reads the slots
/// after every iteration has returned.
private struct _ConcurrentWork: @unchecked Sendable {
    let run: (Int) -> Void
}
