import Foundation
import Repositories
import RepositoriesHTTP
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An item of a chain's catalogue, stocked by one of 100 shops: each shop's device syncs
/// only its own items.
struct StockedItem: Codable, Identifiable, Sendable, Equatable, QueryableEntity {
    var id: Int
    var shop: Int
    var name: String
    var price: Double

    static let queryableFields: [QueryableField<StockedItem>] = [QueryableField(\.shop, name: "shop")]

    static let shops = 100

    static func make(_ id: Int, revision: Int = 0) -> StockedItem {
        StockedItem(id: id, shop: id % shops, name: "item \(id) r\(revision)", price: Double(id % 1_000) / 4)
    }
}

extension BenchmarkRun {
    /// Figure 16: partial sync. A shop's device syncs its 1% of a chain's catalogue
    /// (`subset: Query().where(\.shop == 7)`) through `SyncEndpoint`'s subset feed, reached
    /// over `HTTPRepository` and `SyncEndpointTransport` (the client's and the endpoint's HTTP
    /// handling and JSON, without sockets); a device of the whole catalogue does the same work
    /// beside it. Each holds a `FileRepository` and an outbox.
    ///
    /// - The first sync, in time and in bytes the server sent: the subset's first pull still
    ///   pages through the feed from its start, but only the subset's bodies travel (the other
    ///   entities as IDs).
    /// - A sync after 200 changes made elsewhere, 2 of them to the shop's items: the subset
    ///   device receives those 2 bodies and 198 IDs.
    func partialSyncFigures() async throws -> [Figure] {
        let size = quick ? 10_000 : 100_000
        let store = InMemoryRepository((0..<size).map { StockedItem.make($0) })
        let endpoint = SyncEndpoint(store: store)
        let subset = Query<StockedItem>().where(\.shop == 7)
        var firstRuns: [[Double]] = [[], []]
        var firstBytes = (subset: 0, whole: 0)
        var devices: (subset: PartialSyncDevice, whole: PartialSyncDevice)?
        for round in 0..<(quick ? 1 : 3) {
            let pair = (
                subset: try await PartialSyncDevice(endpoint, subset: subset, run: self),
                whole: try await PartialSyncDevice(endpoint, subset: nil, run: self)
            )
            for (index, device) in [pair.subset, pair.whole].enumerated() {
                let elapsed = try await ContinuousClock().measure { try await device.firstSync(size: size) }
                firstRuns[index].append(elapsed.nanoseconds)
            }
            firstBytes = (pair.subset.transport.takeBytes(), pair.whole.transport.takeBytes())
            if round > 0, let devices {
                try await devices.subset.close()
                try await devices.whole.close()
            }
            devices = pair
        }
        guard let devices else { return [] }

        var laterRuns: [[Double]] = [[], []]
        var laterBytes = (subset: 0, whole: 0)
        var received = 0
        for round in 0..<(quick ? 5 : 15) {
            // 200 items changed elsewhere: 198 of other shops (IDs 5k + 1 never end in 07), and 2
            // of shop 7.
            let ids = (0..<198).map { round * 1_000 + $0 * 5 + 1 } + [round * 1_000 + 7, round * 1_000 + 107]
            let changed = ids.map { StockedItem.make($0 % size, revision: round + 1) }
            try await store.save(contentsOf: changed)
            for (index, device) in [devices.subset, devices.whole].enumerated() {
                var report: SyncReport<Int>?
                let elapsed = try await ContinuousClock().measure {
                    report = try await device.repository.sync()
                }
                laterRuns[index].append(elapsed.nanoseconds)
                if index == 0 { received = report?.received ?? 0 }
            }
            laterBytes = (devices.subset.transport.takeBytes(), devices.whole.transport.takeBytes())
        }
        let wanted = try await store.fetchAll().filter(subset.matches).sorted { $0.id < $1.id }
        guard try await devices.subset.local.fetchAll().sorted(by: { $0.id < $1.id }) == wanted else {
            throw BenchmarkFailure(description: "the subset device does not hold exactly shop 7's items")
        }
        try await devices.subset.close()
        try await devices.whole.close()

        let sizeText = size.formatted()
        return [
            .cost(
                16, "first sync of one shop's 1% of \(sizeText) items, through the subset feed",
                measured: Measurement(runs: firstRuns[0]), baseline: Measurement(runs: firstRuns[1]),
                baselineName: "first sync of all \(sizeText)", target: nil),
            Figure(
                number: 16, name: "bytes the server sent for that first sync",
                measured: Self.bytes(firstBytes.subset),
                baseline: "all \(sizeText): \(Self.bytes(firstBytes.whole))",
                ratio: Double(firstBytes.subset) / Double(firstBytes.whole), target: nil, goal: .none),
            .cost(
                16, "a sync after 200 changes elsewhere, 2 of them the shop's (received \(received))",
                measured: Measurement(runs: laterRuns[0]), baseline: Measurement(runs: laterRuns[1]),
                baselineName: "the same sync of all \(sizeText)", target: nil),
            Figure(
                number: 16, name: "bytes the server sent for that sync",
                measured: Self.bytes(laterBytes.subset),
                baseline: "all \(sizeText): \(Self.bytes(laterBytes.whole))",
                ratio: Double(laterBytes.subset) / Double(laterBytes.whole), target: nil, goal: .none),
        ]
    }

    private static func bytes(_ count: Int) -> String {
        count >= 1_000_000
            ? String(format: "%.1f MB", Double(count) / 1_000_000)
            : String(format: "%.1f kB", Double(count) / 1_000)
    }
}

/// A device of figure 16: a `FileRepository` and an outbox over `SyncEndpoint`, syncing
/// `subset` of it (the whole collection when `nil`), counting the bytes it receives.
private struct PartialSyncDevice {
    let transport: ByteCountingTransport
    let local: FileRepository<StockedItem>
    let outbox: Outbox<StockedItem>
    let repository: OfflineFirstRepository<HTTPRepository<StockedItem>, FileRepository<StockedItem>>
    let subset: Query<StockedItem>?

    init(
        _ endpoint: SyncEndpoint<InMemoryRepository<StockedItem>>, subset: Query<StockedItem>?,
        run: BenchmarkRun
    ) async throws {
        transport = ByteCountingTransport(base: SyncEndpointTransport(endpoint, at: "/items"))
        var configuration = HTTPRepository<StockedItem>.Configuration(
            changeFeed: .changesEndpoint(takesSubset: true))
        configuration.queries = .lookups(tiebreak: [])
        let remote = HTTPRepository<StockedItem>(
            baseURL: URL(string: "https://chain.example/items")!, configuration: configuration,
            transport: transport)
        local = try await FileRepository(fileURL: run.file("partial-sync-device"))
        outbox = try await Outbox(fileURL: run.file("partial-sync-outbox"))
        self.subset = subset
        if let subset {
            repository = try remote.offlineFirst(
                local: local, outbox: outbox, subset: subset, automaticSync: nil)
        } else {
            repository = remote.offlineFirst(local: local, outbox: outbox, automaticSync: nil)
        }
    }

    /// The first sync; checks it received the subset (or all `size` items).
    func firstSync(size: Int) async throws {
        let report = try await repository.sync()
        let expected = subset == nil ? size : size / StockedItem.shops
        guard report.received == expected else {
            throw BenchmarkFailure(
                description: "the first sync received \(report.received) of \(expected) items")
        }
    }

    func close() async throws {
        try await local.close()
        try await outbox.close()
    }
}

/// Passes requests to `base` and counts the bytes of the answers' bodies.
private final class ByteCountingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let received = Mutex(0)

    init(base: any HTTPTransport) { self.base = base }

    /// The bytes received since the last call.
    func takeBytes() -> Int {
        received.withLock { count in
            defer { count = 0 }
            return count
        }
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await base.send(request)
        received.withLock { $0 += data.count }
        return (data, response)
    }
}
