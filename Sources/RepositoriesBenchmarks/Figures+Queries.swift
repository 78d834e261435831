import Foundation
import Repositories
import RepositoriesSQLite

/// An entity that declares its price and name as queryable fields; ``BenchmarkEntity``
/// declares none, so the other figures' stores keep no index.
struct PricedItem: Codable, Identifiable, Sendable, QueryableEntity {
    var id: Int
    var name: String
    var price: Double
    var updatedAt: Date

    static let queryableFields: [QueryableField<PricedItem>] = [
        QueryableField(\.price, name: "price"),
        QueryableField(\.name, name: "name"),
    ]

    /// Prices spread over the whole range in no relation to the ID (a multiplicative
    /// permutation), a few entities to a price, as a list screen's scores are.
    static func make(_ id: Int, size: Int) -> PricedItem {
        PricedItem(
            id: id, name: "item \(id)", price: Double((id &* 7_919) % max(size / 2, 1)) / 4,
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(id)))
    }
}

extension BenchmarkRun {
    /// Figure 15: a list screen's query, "the 20 highest prices below a threshold", run by
    /// `InMemoryRepository` and `FileRepository` as a field query (their in-memory indexes)
    /// and by `SQLiteRepository` (one SQL statement on the `price` column's index) at each
    /// size. The ratio is the cost's growth from the smallest size to the largest: an index
    /// answers in O(log n + 20), so it should barely grow (target ≤ 3×). A second row per
    /// store holds the same query written as a closure filter at the largest size, which
    /// reads every entity: what the index saves.
    func queryFigures() async throws -> [Figure] {
        var figures: [Figure] = []
        figures += try await queryGrowth("InMemoryRepository") { items in InMemoryRepository(items) }
        figures += try await queryGrowth("FileRepository") { items in
            let store = try await FileRepository<PricedItem>(fileURL: file("queries"))
            try await store.save(contentsOf: items)
            return store
        }
        figures += try await queryGrowth("SQLiteRepository") { items in
            let store = try await SQLiteRepository<PricedItem>(fileURL: file("queries.sqlite"))
            try await store.save(contentsOf: items)
            return store
        }
        return figures
    }

    /// The field query at `threshold`.
    static func highestBelow(_ threshold: Double) -> Query<PricedItem> {
        Query<PricedItem>().where(\.price < threshold).sorted(by: \.price, .descending).limit(20)
    }

    /// The same query as closures, which no store can run but by reading everything.
    static func highestBelowByClosure(_ threshold: Double) -> Query<PricedItem> {
        Query<PricedItem>(where: { $0.price < threshold })
            .sorted(by: SortKey(.descending) { $0.price }).limit(20)
    }

    private func queryGrowth<R: Repository<PricedItem, Int>>(
        _ name: String, make: ([PricedItem]) async throws -> R
    ) async throws -> [Figure] {
        var costs: [(size: Int, cost: Measurement)] = []
        var closureCost: Measurement?
        let queries = quick ? 200 : 2_000
        for size in sizes {
            let store = try await make((0..<size).map { PricedItem.make($0, size: size) })
            let highest = Double(max(size / 2, 1)) / 4
            let thresholds = (0..<queries).map { highest * Double(($0 &* 37) % 100 + 1) / 101 }
            var checksum = 0
            let cost = try await Measurement.median(repetitions: repetitions) {
                for threshold in thresholds {
                    let page = try await store.fetch(Self.highestBelow(threshold))
                    checksum &+= page.count
                }
                return thresholds.count
            }
            costs.append((size, cost))
            if size == sizes.last {
                // Check the two forms agree before timing the slow one.
                let sample = thresholds.prefix(3)
                for threshold in sample {
                    let indexed = try await store.fetch(Self.highestBelow(threshold)).map(\.id)
                    let scanned = try await store.fetch(Self.highestBelowByClosure(threshold)).map(\.id)
                    guard indexed == scanned else {
                        throw BenchmarkFailure(
                            description:
                                "\(name): the field query and the closure query disagree at \(threshold)")
                    }
                }
                closureCost = try await Measurement.median(repetitions: repetitions) {
                    for threshold in sample {
                        checksum &+= try await store.fetch(Self.highestBelowByClosure(threshold)).count
                    }
                    return sample.count
                }
            }
            blackHole(checksum)
        }
        guard let first = costs.first, let last = costs.last, let closureCost else { return [] }
        let series = costs.map { "\(Self.label($0.size)): \(Format.time($0.cost.nanosecondsPerOperation))" }
            .joined(separator: ", ")
        return [
            Figure(
                number: 15,
                name:
                    "\(name): 20 highest prices below a threshold (field query), \(Self.label(first.size)) → \(Self.label(last.size)) entities",
                measured: series, baseline: "the same at \(Self.label(first.size))",
                ratio: last.cost.nanosecondsPerOperation / first.cost.nanosecondsPerOperation, target: 3,
                goal: .atMost, note: "ratio: the cost's growth"),
            Figure.cost(
                15, "\(name): the same query at \(Self.label(last.size)), field query vs closure filter",
                measured: last.cost, baseline: closureCost, baselineName: "closure filter", target: nil,
                note: String(
                    format: "the field query is %.0f× faster",
                    closureCost.nanosecondsPerOperation / last.cost.nanosecondsPerOperation)),
        ]
    }
}
