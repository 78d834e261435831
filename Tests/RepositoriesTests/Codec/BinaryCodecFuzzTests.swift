import Foundation
import Repositories
import RepositoriesTesting
import Testing

/// The binary decoder reads damaged and hostile bytes without trapping and without
/// allocating what a length field claims: random bytes, and valid encodings of rich values
/// with bits flipped, bytes cut, inserted or deleted, and length fields set huge. Each case
/// must decode or throw a `DecodingError`; seeded, so a failure repeats.
@Suite struct BinaryCodecFuzzTests {
    /// The valid encodings the mutations start from.
    private static func seeds() throws -> [(bytes: [UInt8], decode: ([UInt8]) throws -> Void)] {
        var random = SeededRandomNumberGenerator(seed: 2_026)
        var seeds: [(bytes: [UInt8], decode: ([UInt8]) throws -> Void)] = []
        for index in [0, 1, 2, 3, 5, 6, 7, 10, 11] {
            let entity = ConformanceEntity.make(index: index, revision: index % 3)
            seeds.append(
                (
                    try EntityCodec.binary.encode(entity),
                    { _ = try EntityCodec.binary.decode(ConformanceEntity.self, from: $0) }
                ))
        }
        for _ in 0..<12 {
            let sample = CodecSample.random(using: &random)
            seeds.append(
                (
                    try EntityCodec.binary.encode(sample),
                    { _ = try EntityCodec.binary.decode(CodecSample.self, from: $0) }
                ))
        }
        let list = (0..<5).map { ConformanceEntity.make(index: $0, revision: 1) }
        seeds.append(
            (
                try EntityCodec.binary.encode(list),
                { _ = try EntityCodec.binary.decode([ConformanceEntity].self, from: $0) }
            ))
        seeds.append(
            (
                try EntityCodec.binary.encode(
                    HandWritten(matrix: [[1], [2, 3]], pairs: ["a": [true]], empty: ())),
                { _ = try EntityCodec.binary.decode(HandWritten.self, from: $0) }
            ))
        seeds.append(
            (
                try EntityCodec.binary.encode(Chain(depth: 20)),
                { _ = try EntityCodec.binary.decode(Chain.self, from: $0) }
            ))
        return seeds
    }

    /// Decodes `bytes`; returns whether it threw. Any error but a `DecodingError` fails.
    private static func check(_ bytes: [UInt8], with decode: ([UInt8]) throws -> Void, case name: String)
        -> Bool
    {
        do {
            try decode(bytes)
            return false
        } catch is DecodingError {
            return true
        } catch {
            Issue.record("\(name) threw \(type(of: error)), not a DecodingError: \(error)")
            return true
        }
    }

    @Test func mutatedEncodingsThrowOrDecode() throws {
        let seeds = try Self.seeds()
        var random = SeededRandomNumberGenerator(seed: 15)
        var thrown = 0
        let cases = 24_000
        for index in 0..<cases {
            let seed = seeds[index % seeds.count]
            let mutated = Self.mutate(seed.bytes, using: &random)
            if Self.check(mutated, with: seed.decode, case: "mutation \(index)") { thrown += 1 }
        }
        // Most mutations must be caught; a few (a flipped bit in a number) still decode.
        #expect(thrown > cases / 2)
    }

    @Test func randomBytesThrowOrDecode() throws {
        var random = SeededRandomNumberGenerator(seed: 99)
        let decoders: [([UInt8]) throws -> Void] = [
            { _ = try EntityCodec.binary.decode(ConformanceEntity.self, from: $0) },
            { _ = try EntityCodec.binary.decode(CodecSample.self, from: $0) },
            { _ = try EntityCodec.binary.decode([String: [Int]].self, from: $0) },
            { _ = try EntityCodec.binary.decode(String?.self, from: $0) },
        ]
        for index in 0..<12_000 {
            var bytes = (0..<Int.random(in: 0..<48, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            // Mostly a valid version byte and a plausible tag, so decoding gets past the first check.
            if !bytes.isEmpty, index % 4 != 0 { bytes[0] = BinaryFormatBytes.version }
            if bytes.count > 1, index % 2 == 0 { bytes[1] = UInt8.random(in: 0...0x0C, using: &random) }
            _ = Self.check(bytes, with: decoders[index % decoders.count], case: "random \(index)")
        }
    }

    /// One random mutation of `bytes`.
    private static func mutate(_ bytes: [UInt8], using random: inout SeededRandomNumberGenerator) -> [UInt8] {
        var bytes = bytes
        let position = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            for _ in 0...Int.random(in: 0..<4, using: &random) {
                let bit = Int.random(in: 0..<(bytes.count * 8), using: &random)
                bytes[bit / 8] ^= 1 << UInt8(bit % 8)
            }
        case 1:
            bytes.removeSubrange(position...)
        case 2:
            let inserted = (0..<Int.random(in: 1...8, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            bytes.insert(contentsOf: inserted, at: position)
        case 3:
            bytes.removeSubrange(
                position..<min(bytes.count, position + Int.random(in: 1...8, using: &random)))
        case 4:
            // A length field (a container's u32, or a varint) set huge.
            let huge: [UInt8] =
                Bool.random(using: &random)
                ? [0xFF, 0xFF, 0xFF, 0xFF] : [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]
            bytes.replaceSubrange(position..<min(bytes.count, position + huge.count), with: huge)
        case 5:
            bytes[position] = UInt8.random(in: 0...0x0D, using: &random)
        default:
            let end = min(bytes.count, position + Int.random(in: 1...16, using: &random))
            for offset in position..<end { bytes[offset] = UInt8.random(in: 0...255, using: &random) }
        }
        return bytes
    }
}

/// The format's version byte, as the tests write it into hand-made documents.
enum BinaryFormatBytes {
    static let version: UInt8 = 1
}
