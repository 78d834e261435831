import Foundation
import Repositories

/// A value that uses every kind of `Codable` value the codecs must carry, made at random
/// from a seed: every integer width, Float and Double, unicode strings (empty and huge),
/// `Date`, `Data`, `UUID`, `URL`, `Decimal`, optionals (of optionals), arrays of nested
/// values, dictionaries with String and Int keys, and enums with associated values.
struct CodecSample: Codable, Equatable {
    struct Inner: Codable, Equatable {
        var label: String?
        var values: [Double]
        var flags: [Bool]
    }

    indirect enum Choice: Codable, Equatable {
        case nothing
        case number(Int)
        case labeled(name: String, weight: Double?)
        case pair(Choice, Choice)
        case list([Choice])
    }

    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var float: Float
    var double: Double
    var bool: Bool
    var text: String
    var date: Date
    var data: Data
    var uuid: UUID
    var url: URL
    var decimal: Decimal
    var optional: Int?
    var doubleOptional: String??
    var inners: [Inner]
    var byName: [String: Int]
    var byNumber: [Int: String]
    var choice: Choice
    var choices: [Choice]

    /// A random sample; `large` adds a string of up to 200 KB.
    static func random(using random: inout SeededRandomNumberGenerator, large: Bool = false) -> CodecSample {
        CodecSample(
            int: .random(in: .min ... .max, using: &random), int8: .random(in: .min ... .max, using: &random),
            int16: .random(in: .min ... .max, using: &random),
            int32: .random(in: .min ... .max, using: &random),
            int64: .random(in: .min ... .max, using: &random),
            uint: .random(in: .min ... .max, using: &random),
            uint8: .random(in: .min ... .max, using: &random),
            uint16: .random(in: .min ... .max, using: &random),
            uint32: .random(in: .min ... .max, using: &random),
            uint64: .random(in: .min ... .max, using: &random),
            float: Float.random(in: -1e30...1e30, using: &random),
            double: randomDouble(using: &random),
            bool: .random(using: &random),
            text: randomText(using: &random, maximumLength: large ? 200_000 : 40),
            date: Date(timeIntervalSinceReferenceDate: .random(in: -1e10...1e10, using: &random)),
            data: Data(
                (0..<Int.random(in: 0..<64, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }),
            uuid: UUID(uuid: randomUUIDBytes(using: &random)),
            url: URL(
                string:
                    "https://example.com/\(Int.random(in: 0..<1_000, using: &random))/caf%C3%A9?q=\(Int.random(in: 0..<9, using: &random))#top"
            )!,
            decimal: Decimal(
                string:
                    "\(Int.random(in: -99_999...99_999, using: &random)).\(Int.random(in: 0...999, using: &random))"
            )!,
            optional: Bool.random(using: &random) ? nil : .random(in: -5...5, using: &random),
            doubleOptional: Bool.random(using: &random)
                ? nil : .some(randomText(using: &random, maximumLength: 8)),
            inners: (0..<Int.random(in: 0..<4, using: &random)).map { _ in
                Inner(
                    label: Bool.random(using: &random) ? nil : randomText(using: &random, maximumLength: 10),
                    values: (0..<Int.random(in: 0..<5, using: &random)).map { _ in
                        .random(in: -1e6...1e6, using: &random)
                    },
                    flags: (0..<Int.random(in: 0..<3, using: &random)).map { _ in .random(using: &random) })
            },
            byName: Dictionary(
                (0..<Int.random(in: 0..<6, using: &random)).map {
                    ("k\($0)-\(randomText(using: &random, maximumLength: 4))", $0)
                },
                uniquingKeysWith: { first, _ in first }),
            byNumber: Dictionary(
                (0..<Int.random(in: 0..<6, using: &random)).map {
                    (Int.random(in: -1_000...1_000, using: &random), "v\($0)")
                },
                uniquingKeysWith: { first, _ in first }),
            choice: randomChoice(using: &random, depth: 3),
            choices: (0..<Int.random(in: 0..<3, using: &random)).map { _ in
                randomChoice(using: &random, depth: 2)
            })
    }

    /// A finite Double: zero, negative zero, the extremes, or an ordinary number.
    static func randomDouble(using random: inout SeededRandomNumberGenerator) -> Double {
        let edges: [Double] = [0, -0.0, 1e-300, .greatestFiniteMagnitude, -.leastNonzeroMagnitude]
        let pick = Int.random(in: 0..<(edges.count * 2), using: &random)
        return pick < edges.count ? edges[pick] : .random(in: -1e12...1e12, using: &random)
    }

    /// Text of random unicode scalars: ASCII, accents, CJK, emoji, controls and NUL.
    static func randomText(using random: inout SeededRandomNumberGenerator, maximumLength: Int) -> String {
        let pools: [ClosedRange<UInt32>] = [
            0x20...0x7E, 0x00...0x1F, 0xC0...0x24F, 0x4E00...0x4FFF, 0x1F600...0x1F64F, 0x300...0x36F,
        ]
        let length = Int.random(in: 0...maximumLength, using: &random)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            let pool = pools[Int.random(in: 0..<pools.count, using: &random)]
            if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &random)) { scalars.append(scalar) }
        }
        return String(scalars)
    }

    static func randomChoice(using random: inout SeededRandomNumberGenerator, depth: Int) -> Choice {
        switch Int.random(in: 0..<(depth > 0 ? 5 : 3), using: &random) {
        case 0: .nothing
        case 1: .number(.random(in: -1_000...1_000, using: &random))
        case 2:
            .labeled(
                name: randomText(using: &random, maximumLength: 6),
                weight: Bool.random(using: &random) ? nil : .random(in: 0...1, using: &random))
        case 3:
            .pair(
                randomChoice(using: &random, depth: depth - 1), randomChoice(using: &random, depth: depth - 1)
            )
        default:
            .list(
                (0..<Int.random(in: 0..<3, using: &random)).map { _ in
                    randomChoice(using: &random, depth: depth - 1)
                })
        }
    }

    static func randomUUIDBytes(using random: inout SeededRandomNumberGenerator) -> uuid_t {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        return bytes.withUnsafeMutableBytes { $0.loadUnaligned(as: uuid_t.self) }
    }
}
