import Foundation
import RepositoriesTesting
import Testing

@testable import Repositories

/// Decoding many records at once on every core keeps their order and reports the first
/// record that fails.
@Suite struct EntityCodecDecodeAllTests {
    /// `count` encoded entities, back to back, and the range of each.
    private func journal(_ count: Int, codec: EntityCodec) throws -> (bytes: [UInt8], ranges: [Range<Int>]) {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for index in 0..<count {
            let start = bytes.count
            try codec.encode(ConformanceEntity.make(index: index % 60, revision: index), appendingTo: &bytes)
            ranges.append(start..<bytes.count)
        }
        return (bytes, ranges)
    }

    @Test(arguments: [EntityCodec.Identifier.json, .binary], [1, 100, 5_000])
    func decodesEveryRecordInOrder(_ identifier: EntityCodec.Identifier, count: Int) throws {
        let codec = try EntityCodec.binary.matching(identifier)
        let (bytes, ranges) = try journal(count, codec: codec)
        let decoded = try bytes.withUnsafeBytes {
            try codec.decodeAll(ConformanceEntity.self, from: $0, ranges: ranges, minimumPerThread: 16)
        }
        #expect(decoded == (0..<count).map { ConformanceEntity.make(index: $0 % 60, revision: $0) })
    }

    @Test func theLowestFailingRecordIsReported() throws {
        var (bytes, ranges) = try journal(4_000, codec: .binary)
        for damaged in [3_100, 1_234, 3_999] { bytes[ranges[damaged].lowerBound] = 7 }
        #expect {
            try bytes.withUnsafeBytes {
                try EntityCodec.binary.decodeAll(
                    ConformanceEntity.self, from: $0, ranges: ranges, minimumPerThread: 16)
            }
        } throws: { error in
            guard let failure = error as? EntityCodec.RecordDecodingFailure else { return false }
            return failure.index == 1_234 && failure.underlying is DecodingError
        }
    }

    @Test func aRangeOutsideTheBytesIsAFailureNotATrap() throws {
        let (bytes, ranges) = try journal(3, codec: .binary)
        #expect(throws: EntityCodec.RecordDecodingFailure.self) {
            try bytes.withUnsafeBytes {
                try EntityCodec.binary.decodeAll(
                    ConformanceEntity.self, from: $0, ranges: ranges + [bytes.count..<bytes.count + 10])
            }
        }
    }
}
