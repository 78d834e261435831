import Foundation
import Repositories
import RepositoriesTesting
import Testing

/// The codec a store is given: its identifiers, and its calls from many tasks at once.
@Suite struct EntityCodecTests {
    @Test func identifiersAreFixedBytes() {
        #expect(EntityCodec.json.identifier.rawValue == 0x4A)
        #expect(EntityCodec.binary.identifier.rawValue == 0x42)
        #expect("\(EntityCodec.Identifier.binary)" == "binary")
    }

    @Test func matchingReadsEveryKnownCodecAndRefusesAnUnknownOne() throws {
        let configured = EntityCodec.json(makeEncoder: {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970
            return encoder
        })
        #expect(try EntityCodec.binary.matching(.json).identifier == .json)
        #expect(try configured.matching(.binary).identifier == .binary)
        let date = Date(timeIntervalSince1970: 42)
        let kept = try configured.matching(.json)
        #expect(String(decoding: try kept.encode(date), as: UTF8.self) == "42")
        #expect {
            try EntityCodec.binary.matching(.init(rawValue: 0x51), location: "/tmp/store")
        } throws: { error in
            guard let error = error as? RepositoryError else { return false }
            return error.code == .rejected && error.location == "/tmp/store"
                && error.reason.contains("0x51")
        }
    }

    @Test(arguments: [EntityCodec.Identifier.json, .binary])
    func appendingLeavesTheBufferAsItWasOnAThrow(_ identifier: EntityCodec.Identifier) throws {
        let codec = try EntityCodec.binary.matching(identifier)
        var buffer: [UInt8] = [9, 9]
        try codec.encode(ConformanceEntity.make(index: 1, revision: 0), appendingTo: &buffer)
        let afterOne = buffer
        #expect(throws: ConformanceEntity.EncodingRefused.self) {
            try codec.encode(ConformanceEntity.unencodable(index: 2), appendingTo: &buffer)
        }
        #expect(buffer == afterOne)
        #expect(
            try codec.decode(ConformanceEntity.self, from: buffer[2...])
                == ConformanceEntity.make(index: 1, revision: 0))
    }

    @Test(arguments: [EntityCodec.Identifier.json, .binary])
    func manyTasksShareOneCodec(_ identifier: EntityCodec.Identifier) async throws {
        let codec = try EntityCodec.binary.matching(identifier)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<32 {
                group.addTask {
                    for index in 0..<50 {
                        let entity = ConformanceEntity.make(index: task * 50 + index, revision: task)
                        let decoded = try codec.decode(ConformanceEntity.self, from: try codec.encode(entity))
                        #expect(decoded == entity)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func aDocumentOfAnotherFormatVersionOrWithTrailingBytesIsRefused() throws {
        var bytes = try EntityCodec.binary.encode("text")
        #expect(try EntityCodec.binary.decode(String.self, from: bytes) == "text")
        bytes[0] = 2
        #expect(throws: DecodingError.self) { try EntityCodec.binary.decode(String.self, from: bytes) }
        bytes[0] = 1
        bytes.append(0)
        #expect(throws: DecodingError.self) { try EntityCodec.binary.decode(String.self, from: bytes) }
        #expect(throws: DecodingError.self) { try EntityCodec.binary.decode(String.self, from: [UInt8]()) }
    }
}
