import Foundation
import Repositories
import RepositoriesSQLite

extension BenchmarkRun {
    /// Figure 6: the cost of `fetch(id:)` and `save` at each size, for every store; the ratio
    /// is the largest size's cost over the smallest's.
    func growthFigures() async throws -> [Figure] {
        var figures: [Figure] = []
        try await figures += growth("InMemoryRepository") { size in
            InMemoryRepository<BenchmarkEntity>((0..<size).map { .make($0) })
        } operations: {
            memoryOperations / 4
        }
        try await figures += growth("FileRepository") { size in
            let store = try await FileRepository<BenchmarkEntity>(fileURL: file("growth"))
            try await store.save(contentsOf: (0..<size).map { .make($0) })
            return store
        } operations: {
            durableOperations
        }
        try await figures += growth("SQLiteRepository") { size in
            let store = try await SQLiteRepository<BenchmarkEntity>(fileURL: file("growth.sqlite"))
            try await store.save(contentsOf: (0..<size).map { .make($0) })
            return store
        } operations: {
            durableOperations
        }
        return figures
    }

    private func growth<R: Repository<BenchmarkEntity, Int>>(
        _ name: String, make: (Int) async throws -> R, operations: () -> Int
    ) async throws -> [Figure] {
        var fetches: [(Int, Measurement)] = []
        var saves: [(Int, Measurement)] = []
        let count = operations()
        for size in sizes {
            let store = try await make(size)
            let order = readOrder(size: size, count: count * 10)
            var checksum = 0
            fetches.append(
                (
                    size,
                    try await Measurement.median(repetitions: repetitions) {
                        for id in order { checksum &+= try await store.fetch(id: id)?.name.utf8.count ?? 0 }
                        return order.count
                    }
                ))
            blackHole(checksum)
            // Saves replace stored entities, so the store stays at its size while measured.
            let updates = order.prefix(count).map { BenchmarkEntity.make($0, revision: 1) }
            saves.append(
                (
                    size,
                    try await Measurement.median(repetitions: repetitions) {
                        for entity in updates { try await store.save(entity) }
                        return updates.count
                    }
                ))
        }
        return [row(name, "fetch(id:)", fetches), row(name, "save", saves)]
    }

    private func row(_ store: String, _ operation: String, _ points: [(Int, Measurement)]) -> Figure {
        guard let first = points.first, let last = points.last else {
            return Figure(
                number: 6, name: store, measured: "", baseline: "", ratio: 0, target: nil, goal: .none)
        }
        let series = points.map { "\($0.0 / 1_000)k: \(Format.time($0.1.nanosecondsPerOperation))" }
        return Figure(
            number: 6, name: "\(store) \(operation), \(first.0 / 1_000)k → \(last.0 / 1_000)k entities",
            measured: series.joined(separator: ", "), baseline: "same at \(first.0 / 1_000)k",
            ratio: last.1.nanosecondsPerOperation / first.1.nanosecondsPerOperation, target: 1.5,
            goal: .atMost)
    }
}
