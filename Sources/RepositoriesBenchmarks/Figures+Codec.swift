import Foundation
import Repositories

extension BenchmarkRun {
    /// Figure 11: the entity codec alone, no storage: encoding and decoding `batchSize`
    /// entities with ``EntityCodec/binary`` against `JSONEncoder`/`JSONDecoder` on the same
    /// entities, interleaved. One at a time is what a store does (each record is its own
    /// value); the array case is ``JSONDecodeFloor``, the floor issue 15's targets are set
    /// against.
    func codecFigures() async throws -> [Figure] {
        let peers = (0..<batchSize).map { PeerEntity.make($0) }
        let products = (0..<batchSize).map { BenchmarkEntity.make($0) }
        let label = "\(batchSize / 1_000)k"
        var figures: [Figure] = []
        figures += try await codecFigures(of: peers, name: "PeerEntity", label: label, decodeTarget: 0.30)
        figures += try await codecFigures(
            of: products, name: "BenchmarkEntity", label: label, decodeTarget: nil)
        return figures
    }

    private func codecFigures<Entity: Codable & Equatable>(
        of entities: [Entity], name: String, label: String, decodeTarget: Double?
    ) async throws -> [Figure] {
        let binary = EntityCodec.binary
        let jsonRecords = try entities.map { try JSONEncoder().encode($0) }
        let binaryRecords = try entities.map { try binary.encode($0) }
        guard
            try binary.decode(Entity.self, from: binaryRecords[entities.count / 2])
                == entities[entities.count / 2]
        else { throw CodecDidNotRoundTrip() }
        let floor = try JSONDecodeFloor(entities)
        let binaryArray = try binary.encode(entities)
        // The records back to back, as a journal holds them, for the decode on every core.
        var journal: [UInt8] = []
        var ranges: [Range<Int>] = []
        for record in binaryRecords {
            ranges.append(journal.count..<journal.count + record.count)
            journal.append(contentsOf: record)
        }

        let (binaryDecode, jsonDecode) = try await Measurement.interleaved(repetitions: repetitions) {
            var decoded = 0
            for record in binaryRecords {
                blackHole(try binary.decode(Entity.self, from: record))
                decoded += 1
            }
            return decoded
        } _: {
            let decoder = JSONDecoder()
            var decoded = 0
            for record in jsonRecords {
                blackHole(try decoder.decode(Entity.self, from: record))
                decoded += 1
            }
            return decoded
        }
        let (binaryArrayDecode, floorDecode) = try await Measurement.interleaved(repetitions: repetitions) {
            try binary.decode([Entity].self, from: binaryArray).count
        } _: {
            try floor.decodeAll(as: Entity.self)
        }
        let (parallelDecode, parallelFloor) = try await Measurement.interleaved(repetitions: repetitions) {
            try journal.withUnsafeBytes { try binary.decodeAll(Entity.self, from: $0, ranges: ranges).count }
        } _: {
            try floor.decodeAll(as: Entity.self)
        }
        let (binaryEncode, jsonEncode) = try await Measurement.interleaved(repetitions: repetitions) {
            var buffer: [UInt8] = []
            for entity in entities {
                buffer.removeAll(keepingCapacity: true)
                try binary.encode(entity, appendingTo: &buffer)
            }
            return entities.count
        } _: {
            let encoder = JSONEncoder()
            for entity in entities { blackHole(try encoder.encode(entity)) }
            return entities.count
        }
        let binaryBytes = binaryRecords.reduce(0) { $0 + $1.count }
        let jsonBytes = jsonRecords.reduce(0) { $0 + $1.count }
        let perRun = Double(entities.count)
        func total(_ measurement: Measurement) -> String {
            Format.time(measurement.nanosecondsPerOperation * perRun)
        }
        return [
            .cost(
                11, "binary codec: decode \(label) \(name), one record at a time", measured: binaryDecode,
                baseline: jsonDecode, baselineName: "JSONDecoder, one record at a time", target: decodeTarget,
                note: "per entity; \(total(binaryDecode)) against \(total(jsonDecode)) for all \(label)"),
            .cost(
                11, "binary codec: decode \(label) \(name) as one array", measured: binaryArrayDecode,
                baseline: floorDecode, baselineName: "JSONDecodeFloor (one array)", target: decodeTarget,
                note: "per run of \(label) entities"),
            .cost(
                11, "binary codec: decode \(label) \(name) records on every core (decodeAll)",
                measured: parallelDecode, baseline: parallelFloor,
                baselineName: "JSONDecodeFloor (one array)", target: decodeTarget,
                note: "per entity; the records back to back, as a journal holds them"),
            .cost(
                11, "binary codec: encode \(label) \(name), one record at a time", measured: binaryEncode,
                baseline: jsonEncode, baselineName: "JSONEncoder, one record at a time", target: nil,
                note: "per entity; \(total(binaryEncode)) against \(total(jsonEncode)) for all \(label)"),
            Figure(
                number: 11, name: "binary codec: bytes of \(label) \(name)",
                measured: "\(binaryBytes / 1_024) KiB",
                baseline: "JSON: \(jsonBytes / 1_024) KiB", ratio: Double(binaryBytes) / Double(jsonBytes),
                target: nil, goal: .none, note: "each record on its own"),
        ]
    }

    /// The binary codec did not give back the entity it was given: the figure would
    /// measure a broken codec.
    struct CodecDidNotRoundTrip: Error {}
}
