import Foundation

/// The entity every figure stores: a product of about 120 bytes of JSON, like the articles'.
struct BenchmarkEntity: Codable, Identifiable, Sendable, Equatable {
    var id: Int
    var name: String
    var price: Double
    var tags: [String]
    var updatedAt: Date

    static func make(_ id: Int, revision: Int = 0) -> BenchmarkEntity {
        BenchmarkEntity(
            id: id, name: "product \(id) r\(revision)", price: Double(id % 1_000) / 4,
            tags: ["tag\(id % 7)", "tag\(id % 11)"],
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(id)))
    }
}
