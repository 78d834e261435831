import Foundation
import Repositories
import RepositoriesTesting
import Testing

/// What goes in comes out: random values through both codecs, and every `Codable` shape
/// the binary codec must carry.
@Suite struct BinaryCodecRoundTripTests {
    @Test(arguments: [EntityCodec.Identifier.json, .binary])
    func randomValuesRoundTrip(_ identifier: EntityCodec.Identifier) throws {
        let codec = try EntityCodec.binary.matching(identifier)
        var random = SeededRandomNumberGenerator(seed: 15)
        for index in 0..<300 {
            let sample = CodecSample.random(using: &random, large: index % 100 == 0)
            let decoded = try codec.decode(CodecSample.self, from: try codec.encode(sample))
            #expect(decoded == sample, "sample \(index)")
        }
    }

    @Test(arguments: [EntityCodec.Identifier.json, .binary])
    func conformanceEntitiesRoundTrip(_ identifier: EntityCodec.Identifier) throws {
        let codec = try EntityCodec.binary.matching(identifier)
        for index in 0..<130 {
            let entity = ConformanceEntity.make(index: index, revision: index % 5)
            #expect(try codec.decode(ConformanceEntity.self, from: try codec.encode(entity)) == entity)
        }
    }

    @Test func theSameValueEncodesToTheSameBytes() throws {
        var random = SeededRandomNumberGenerator(seed: 7)
        var again = SeededRandomNumberGenerator(seed: 7)
        for _ in 0..<100 {
            let sample = CodecSample.random(using: &random)
            let twin = CodecSample.random(using: &again)
            #expect(try EntityCodec.binary.encode(sample) == EntityCodec.binary.encode(sample))
            // Apart from dictionaries (iteration order), equal values built alike encode alike.
            var plain = sample
            var plainTwin = twin
            (plain.byName, plain.byNumber, plainTwin.byName, plainTwin.byNumber) = ([:], [:], [:], [:])
            #expect(try EntityCodec.binary.encode(plain) == EntityCodec.binary.encode(plainTwin))
        }
    }

    @Test func nonFiniteNumbersAndEveryDateBitRoundTrip() throws {
        let doubles: [Double] = [
            .nan, -.nan, .signalingNaN, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude,
        ]
        let floats: [Float] = [.nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude]
        let decodedDoubles = try roundTrip(doubles)
        let decodedFloats = try roundTrip(floats)
        #expect(decodedDoubles.map(\.bitPattern) == doubles.map(\.bitPattern))
        #expect(decodedFloats.map(\.bitPattern) == floats.map(\.bitPattern))
        let dates = [Date(timeIntervalSinceReferenceDate: 0.1 + 0.2), .distantPast, .distantFuture, Date()]
        let decodedDates = try roundTrip(dates)
        #expect(
            decodedDates.map(\.timeIntervalSinceReferenceDate.bitPattern)
                == dates.map(\.timeIntervalSinceReferenceDate.bitPattern))
    }

    @Test func integersAtEveryWidthKeepTheirExtremes() throws {
        struct Extremes: Codable, Equatable {
            var values: [Int64] = [.min, -1, 0, 1, .max]
            var unsigned: [UInt64] = [0, 127, 128, .max]
            var small: [Int8] = [.min, .max]
            var unsignedSmall: [UInt8] = [0, .max]
            var middle: [Int16] = [.min, .max]
            var wide: [Int32] = [.min, .max]
            var unsignedWide: [UInt32] = [.max]
            var words: [UInt] = [.max]
        }
        #expect(try roundTrip(Extremes()) == Extremes())
    }

    @Test func aNumberTooLargeForItsTypeThrowsNamingThePath() throws {
        struct Wide: Codable { var value: Int }
        struct Narrow: Codable { var value: Int8 }
        let bytes = try EntityCodec.binary.encode(Wide(value: 300))
        #expect {
            try EntityCodec.binary.decode(Narrow.self, from: bytes)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["value"]
        }
    }

    @Test func stringsOfAnySizeAndScriptRoundTrip() throws {
        let texts = [
            "", "\u{0}", "e\u{301}", "👩‍👩‍👧", "東京", String(repeating: "x", count: 1 << 20),
            String(repeating: "🚀", count: 70_000),
        ]
        #expect(try roundTrip(texts) == texts)
    }

    @Test func invalidUTF8IsRefusedNotRepaired() throws {
        // A lone continuation byte, a truncated 4-byte sequence (which repair would turn into
        // one U+FFFD of the same 3 bytes' length), and an encoded surrogate.
        for invalid: [UInt8] in [[0xC3, 0x28], [0xF0, 0x9F, 0x98], [0xED, 0xA0, 0x80]] {
            let document: [UInt8] = [1, 0x07, UInt8(invalid.count)] + invalid
            #expect(throws: DecodingError.self) { try EntityCodec.binary.decode(String.self, from: document) }
        }
    }

    @Test func keysAskedInAnotherOrderOrMissingAreFound() throws {
        struct Written: Codable { var a = 1, b = "two", c = 3.0, d: Int? = 4 }
        struct ReadBackwards: Decodable, Equatable {
            var a: Int, b: String, c: Double, d: Int?, e: Int?
            enum CodingKeys: String, CodingKey { case a, b, c, d, e }
            init(a: Int, b: String, c: Double, d: Int?, e: Int?) {
                (self.a, self.b, self.c, self.d, self.e) = (a, b, c, d, e)
            }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                e = try container.decodeIfPresent(Int.self, forKey: .e)
                d = try container.decodeIfPresent(Int.self, forKey: .d)
                c = try container.decode(Double.self, forKey: .c)
                a = try container.decode(Int.self, forKey: .a)
                b = try container.decode(String.self, forKey: .b)
                #expect(container.contains(.a) && !container.contains(.e))
                #expect(Set(container.allKeys.map(\.stringValue)) == ["a", "b", "c", "d"])
            }
        }
        let bytes = try EntityCodec.binary.encode(Written())
        #expect(
            try EntityCodec.binary.decode(ReadBackwards.self, from: bytes)
                == .init(a: 1, b: "two", c: 3, d: 4, e: nil))
        struct NeedsE: Decodable { var e: Int }
        #expect {
            try EntityCodec.binary.decode(NeedsE.self, from: bytes)
        } throws: { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return false }
            return key.stringValue == "e"
        }
    }

    @Test func aDoubleOptionalCollapsesToNilAsInJSON() throws {
        struct Holder: Codable, Equatable { var value: Int?? }
        let collapsed = Holder(value: .some(nil))
        #expect(try roundTrip(collapsed) == (try roundTrip(collapsed, codec: .json)))
        #expect(try roundTrip(Holder(value: .some(5))) == Holder(value: .some(5)))
    }

    @Test func classesEncodeTheirSuperclassThroughSuperEncoders() throws {
        let value = Child(base: 1, extra: "two")
        let decoded = try roundTrip(value)
        #expect(decoded.base == 1 && decoded.extra == "two")
        let merged = MergedChild(base: 3, extra: "four")
        let decodedMerged = try roundTrip(merged)
        #expect(decodedMerged.base == 3 && decodedMerged.extra == "four")
    }

    @Test func handWrittenContainersNestAndReadBack() throws {
        let value = HandWritten(matrix: [[1, 2], [], [3]], pairs: ["x": [true, false]], empty: ())
        #expect(try roundTrip(value) == value)
    }

    @Test func aNestedContainerFilledAfterItsParentMovedOnThrows() throws {
        #expect(throws: EncodingError.self) { try EntityCodec.binary.encode(OutOfOrderWriter()) }
    }

    @Test func nestingDeeperThanTheLimitThrowsBothWays() throws {
        #expect(throws: EncodingError.self) { try EntityCodec.binary.encode(Chain(depth: 150)) }
        #expect(try roundTrip(Chain(depth: 100)).depth == 100)
        // 100,000 keyed containers, each holding the next: decoding stops at the limit.
        let innermost: [UInt8] = [0x08, 4, 0, 0, 0, 0, 0, 0, 0]
        var size = innermost.count
        var headers: [[UInt8]] = []
        for _ in 0..<100_000 {
            let body = UInt32(4 + 5 + size)
            headers.append(
                [0x08] + withUnsafeBytes(of: body.littleEndian, Array.init) + [1, 0, 0, 0, 4]
                    + Array("next".utf8))
            size += 14
        }
        let document = [1] + headers.reversed().joined() + innermost
        #expect(throws: DecodingError.self) { try EntityCodec.binary.decode(Chain.self, from: document) }
        // The limit holds on a thread with Darwin's secondary-thread stack of 512 KiB.
        let threwDecodingError = Shared<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let threw: Bool
            do {
                _ = try EntityCodec.binary.decode(Chain.self, from: document)
                threw = false
            } catch {
                threw = error is DecodingError
            }
            threwDecodingError.update { $0 = threw }
            done.signal()
        }
        thread.stackSize = 512 * 1_024
        thread.start()
        done.wait()
        #expect(threwDecodingError.value == true)
    }

    @Test func aClaimedLengthOfTwoToTheSixtiethThrows() throws {
        // A string whose varint length is 2^60, then 3 bytes.
        let hugeString: [UInt8] = [1, 0x07, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10, 65, 66, 67]
        #expect(throws: DecodingError.self) { try EntityCodec.binary.decode(String.self, from: hugeString) }
        // An unkeyed container claiming 4 billion elements in 4 bytes of body.
        let hugeArray: [UInt8] = [1, 0x09, 4, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(throws: DecodingError.self) { try EntityCodec.binary.decode([Int].self, from: hugeArray) }
    }

    private func roundTrip<T: Codable>(_ value: T, codec: EntityCodec = .binary) throws -> T {
        try codec.decode(T.self, from: try codec.encode(value))
    }
}

/// A linked list as deep as asked, to test the nesting limit.
final class Chain: Codable {
    let next: Chain?

    init(depth: Int) {
        next = depth > 1 ? Chain(depth: depth - 1) : nil
    }

    var depth: Int {
        var count = 1
        var node = self
        while let next = node.next {
            count += 1
            node = next
        }
        return count
    }
}

/// A superclass whose subclass encodes it through `superEncoder()`.
class Parent: Codable {
    var base: Int
    init(base: Int) { self.base = base }
}

/// Encodes its superclass under `super`, as the documentation suggests.
final class Child: Parent {
    var extra: String
    private enum CodingKeys: String, CodingKey { case extra }

    init(base: Int, extra: String) {
        self.extra = extra
        super.init(base: base)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        extra = try container.decode(String.self, forKey: .extra)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(extra, forKey: .extra)
        try super.encode(to: container.superEncoder())
    }
}

/// Encodes its superclass into the same keyed container, as many apps do.
final class MergedChild: Parent {
    var extra: String
    private enum CodingKeys: String, CodingKey { case extra }

    init(base: Int, extra: String) {
        self.extra = extra
        super.init(base: base)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        extra = try container.decode(String.self, forKey: .extra)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        try super.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(extra, forKey: .extra)
    }
}

/// Nested keyed and unkeyed containers written by hand.
struct HandWritten: Codable, Equatable {
    var matrix: [[Int]]
    var pairs: [String: [Bool]]
    var empty: Void

    static func == (lhs: HandWritten, rhs: HandWritten) -> Bool {
        lhs.matrix == rhs.matrix && lhs.pairs == rhs.pairs
    }

    init(matrix: [[Int]], pairs: [String: [Bool]], empty: Void) {
        (self.matrix, self.pairs, self.empty) = (matrix, pairs, empty)
    }

    private enum CodingKeys: String, CodingKey { case matrix, pairs, nothing }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var rows = try container.nestedUnkeyedContainer(forKey: .matrix)
        matrix = []
        while !rows.isAtEnd {
            var row = try rows.nestedUnkeyedContainer()
            var values: [Int] = []
            while !row.isAtEnd { values.append(try row.decode(Int.self)) }
            matrix.append(values)
        }
        let pairs = try container.nestedContainer(keyedBy: AnyKey.self, forKey: .pairs)
        self.pairs = [:]
        for key in pairs.allKeys { self.pairs[key.stringValue] = try pairs.decode([Bool].self, forKey: key) }
        guard try container.decodeNil(forKey: .nothing) else {
            throw DecodingError.dataCorruptedError(
                forKey: .nothing, in: container, debugDescription: "Expected nil")
        }
        empty = ()
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var rows = container.nestedUnkeyedContainer(forKey: .matrix)
        for values in matrix {
            var row = rows.nestedUnkeyedContainer()
            for value in values { try row.encode(value) }
        }
        var pairs = container.nestedContainer(keyedBy: AnyKey.self, forKey: .pairs)
        for (key, value) in self.pairs.sorted(by: { $0.key < $1.key }) {
            try pairs.encode(value, forKey: AnyKey(stringValue: key))
        }
        try container.encodeNil(forKey: .nothing)
    }
}

/// A coding key of any name.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Keeps a nested container and fills it after writing to its parent again.
struct OutOfOrderWriter: Encodable {
    private enum CodingKeys: String, CodingKey { case first, second }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var nested = container.nestedUnkeyedContainer(forKey: .first)
        try container.encode(2, forKey: .second)
        try nested.encode(1)
    }
}
