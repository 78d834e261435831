import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Partial sync over HTTP: an offline-first repository made with a `subset` asks the API's
/// feed for that subset in the query convention's parameters, and the server (`SyncEndpoint`,
/// the real FastAPI app) sends only the subset's entities and the IDs of the others that
/// changed; the device ends holding exactly the subset, also when the server ignores the
/// parameters, loses answers, or the sync is cancelled midway, and without a feed it reads
/// the subset through the list's own parameters.
@Suite struct PartialSyncOverHTTPTests {
    static let players = ["ana", "ben", "cy"]
    static let anas = Query<Score>().where(\.player == "ana")

    /// `count` scores from ID 1, played in turn by ben, cy and ana.
    static func scores(_ count: Int) -> [Score] {
        (1...count).map { Score(id: $0, player: players[$0 % 3], points: $0, rating: 0) }
    }

    /// A device over `remote` syncing ana's scores: a real file store and outbox in `directory`.
    struct Device<Remote: Repository>: Sendable where Remote.Entity == Score, Remote.ID == Int {
        let local: FileRepository<Score>
        let outbox: Outbox<Score>
        let scores: OfflineFirstRepository<Remote, FileRepository<Score>>

        init(_ remote: Remote, in directory: TemporaryDirectory) async throws {
            local = try await FileRepository(fileURL: directory.url.appending(path: "scores.store"))
            outbox = try await Outbox(fileURL: directory.url.appending(path: "scores.outbox"))
            scores = try remote.offlineFirst(local: local, outbox: outbox, subset: anas, automaticSync: nil)
        }

        /// The scores the device holds, in ID order.
        func held() async throws -> [Score] { try await local.fetchAll().sorted { $0.id < $1.id } }

        func close() async throws {
            try await outbox.close()
            try await local.close()
        }
    }

    /// ana's scores among `all`, in ID order.
    static func anas(in all: [Score]) -> [Score] {
        all.filter { $0.player == "ana" }.sorted { $0.id < $1.id }
    }

    /// Moves three of ana's scores to ben, two of cy's to ana, changes five of ben's and
    /// deletes one of ana's, on the server's side.
    static func changeElsewhere(_ store: some Repository<Score, Int>) async throws {
        try await store.save(
            contentsOf: [3, 6, 9].map { Score(id: $0, player: "ben", points: $0, rating: 0) })
        try await store.save(contentsOf: [2, 5].map { Score(id: $0, player: "ana", points: $0, rating: 1) })
        try await store.save(
            contentsOf: [1, 4, 7, 10, 13].map { Score(id: $0, player: "ben", points: 99, rating: 0) })
        try await store.delete(id: 12)
    }

    static func endpointClient(
        _ store: InMemoryRepository<Score>, feed: Bool = true, droppingParameter dropped: String? = nil
    ) throws -> (HTTPRepository<Score>, FeedCounter) {
        let counter = FeedCounter(
            base: CountingTransport(
                base: SyncEndpointTransport(SyncEndpoint(store: store), at: "/scores"),
                droppingParameter: dropped))
        var configuration = HTTPRepository<Score>.Configuration(
            changeFeed: feed ? .changesEndpoint(takesSubset: true) : nil)
        // The endpoint orders by declared fields only: no `id` tiebreak.
        configuration.queries = .lookups(tiebreak: [])
        let client = HTTPRepository<Score>(
            baseURL: try #require(URL(string: "https://api.example.com/scores")),
            configuration: configuration,
            transport: counter)
        return (client, counter)
    }

    @Test func theFeedIsAskedForTheSubsetAndSendsOnlyIt() async throws {
        let store = InMemoryRepository(Self.scores(300))
        let (client, counter) = try Self.endpointClient(store)
        let directory = try TemporaryDirectory()
        let device = try await Device(client, in: directory)

        let first = try await device.scores.sync()
        #expect(first.received == 100, "\(first)")
        #expect(try await device.held() == Self.anas(in: try await store.fetchAll()))
        #expect(counter.feedRequests.allSatisfy { $0.contains("player=ana") }, "\(counter.feedRequests)")
        #expect(counter.bodiesSent == 100, "only ana's scores travelled")

        try await Self.changeElsewhere(store)
        counter.reset()
        let second = try await device.scores.sync()
        #expect(second.pullWasIncremental, "\(second)")
        #expect(second.received == 6, "3 left, 2 joined, 1 deleted: \(second)")
        #expect(counter.bodiesSent == 2, "the two that joined; ben's changes travel as IDs")
        #expect(try await device.held() == Self.anas(in: try await store.fetchAll()))

        // A score this device gives to ben is sent, then leaves the device.
        try await device.scores.save(Score(id: 15, player: "ben", points: 15, rating: 0))
        try await device.scores.sync()
        #expect(try await store.fetch(id: 15)?.player == "ben")
        #expect(try await device.held() == Self.anas(in: try await store.fetchAll()))
        try await device.close()
    }

    /// A server that ignores the subset's parameters sends every changed score; the device
    /// keeps only ana's, and removes the ones that left, as it does with a server that reads
    /// them.
    @Test func aServerThatIgnoresTheSubsetCostsMoreButIsNeverWrong() async throws {
        let store = InMemoryRepository(Self.scores(300))
        let (client, counter) = try Self.endpointClient(store, droppingParameter: "player")
        let directory = try TemporaryDirectory()
        let device = try await Device(client, in: directory)
        try await device.scores.sync()
        #expect(counter.bodiesSent == 300)
        #expect(try await device.held() == Self.anas(in: try await store.fetchAll()))

        try await Self.changeElsewhere(store)
        let report = try await device.scores.sync()
        #expect(report.pullWasIncremental)
        #expect(try await device.held() == Self.anas(in: try await store.fetchAll()))
        try await device.close()
    }

    /// Without a feed, each pull reads the subset through the list's own parameters, and an
    /// entity that left it is removed.
    @Test func withoutAFeedThePullAsksTheListForTheSubset() async throws {
        let store = InMemoryRepository(Self.scores(90))
        let (client, counter) = try Self.endpointClient(store, feed: false)
        let directory = try TemporaryDirectory()
        let device = try await Device(client, in: directory)
        let first = try await device.scores.sync()
        #expect(first.fullPullReason?.contains("the whole subset was read") == true, "\(first)")
        #expect(counter.listRequests.allSatisfy { $0.contains("player=ana") }, "\(counter.listRequests)")
        #expect(try await device.held() == Self.anas(in: try await store.fetchAll()))

        try await Self.changeElsewhere(store)
        try await device.scores.sync()
        #expect(try await device.held() == Self.anas(in: try await store.fetchAll()))
        try await device.close()
    }

    /// Against the real FastAPI app, whose scores' feed reads the lookups: another client
    /// moves scores in and out of ana's subset while the device changes its own and gives
    /// some away, a quarter
    /// of the answers are lost after the server acted, and one sync in each round is
    /// cancelled at a random moment. After the rounds and a restart, the device holds exactly
    /// the server's subset, and the server sent ana's scores' bodies only.
    @Test func aHostileFastAPIFeedConvergesOnTheSubset() async throws {
        try await withFramework(.fastAPI) { server in
            var configuration = HTTPRepository<Score>.Configuration.fastAPI(queries: .lookups())
            configuration.changeFeed = .changesEndpoint(takesSubset: true)
            let url = server.root.appending(path: "scores/")
            let api = HTTPRepository<Score>(baseURL: url, configuration: configuration)
            try await api.save(contentsOf: Self.scores(120))
            let losing = FeedCounter(base: URLSessionTransport(), losing: 0.25, seed: 5)
            let client = HTTPRepository<Score>(baseURL: url, configuration: configuration, transport: losing)
            let directory = try TemporaryDirectory()
            var device = try await Device(client, in: directory)
            try await Self.syncUntilItWorks(device.scores)
            #expect(try await device.held() == Self.anas(in: try await api.fetchAll()))

            var random = SeededRandomNumberGenerator(seed: 77)
            var cancelledSyncs = 0
            for round in 0..<6 {
                // Another client reassigns and deletes scores; the device changes its own.
                for _ in 0..<8 {
                    let id = Int.random(in: 1...120, using: &random)
                    let player = Self.players.randomElement(using: &random)!
                    if Int.random(in: 0..<6, using: &random) == 0 {
                        _ = try? await api.delete(id: id)  // already gone is fine here
                    } else {
                        try await api.save(Score(id: id, player: player, points: round, rating: 2))
                    }
                }
                // The device changes two of its scores and gives a third to cy.
                for (index, score) in try await device.held().prefix(3).enumerated() {
                    try await device.scores.save(
                        Score(
                            id: score.id, player: index == 2 ? "cy" : score.player, points: 1_000 + round,
                            rating: 3))
                }
                let cancelled = Task { [scores = device.scores] in try await scores.sync() }
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...3, using: &random)))
                cancelled.cancel()
                if case .failure(let error) = await cancelled.result, error is CancellationError {
                    cancelledSyncs += 1
                }
                try await Self.syncUntilItWorks(device.scores)
                #expect(
                    try await device.held() == Self.anas(in: try await api.fetchAll()), "round \(round)")
            }
            try await device.close()
            device = try await Device(client, in: directory)
            try await Self.syncUntilItWorks(device.scores)
            #expect(try await device.held() == Self.anas(in: try await api.fetchAll()), "after a restart")
            #expect(try await device.outbox.changes().isEmpty)
            let stats = try await server.hostilityCounts()
            #expect(cancelledSyncs > 0, "a sync was cancelled midway in at least one round")
            #expect(losing.bodiesSent > 0)
            #expect(losing.answersLost >= 10, "the hostility happened: \(losing.answersLost) answers lost")
            #expect(losing.foreignBodies == 0, "every score body the feed sent was ana's")
            #expect(
                (stats["score_bodies_sent"] ?? 0) == losing.bodiesSent + losing.bodiesLost,
                "the server counted the bodies the device read or lost: \(stats)")
            try await device.close()
        }
    }

    /// A condition on a field named like the feed's own parameters (`since`, `limit`) is
    /// never sent: the server would read it as the cursor or the page size. It runs on the
    /// device, as does every condition of a feed that does not take subsets.
    @Test func aConditionNamedLikeTheFeedsParametersStaysOnTheDevice() async throws {
        struct Event: Identifiable, Codable, Sendable, QueryableEntity {
            var id: Int
            var since: Int
            var owner: String
            static let queryableFields: [QueryableField<Event>] = [
                QueryableField(\.since, name: "since"), QueryableField(\.owner, name: "owner"),
            ]
        }
        let page =
            #"{"saved": [{"id": 1, "since": 3, "owner": "ana"}, {"id": 2, "since": 4, "owner": "ana"}], "deleted": [], "next": "9", "more": false}"#
        let transport = RecordingTransport { _ in (200, [:], page) }
        let url = try #require(URL(string: "https://api.example.com/events"))
        var configuration = HTTPRepository<Event>.Configuration(
            changeFeed: .changesEndpoint(takesSubset: true))
        configuration.queries = .lookups()
        let events = HTTPRepository<Event>(baseURL: url, configuration: configuration, transport: transport)
        let subset = Query<Event>().where(\.since == 3).where(\.owner == "ana")
        let first = try await events.changes(since: nil, limit: 10, in: subset)
        let next = try await events.changes(since: first.next, limit: 10, in: subset)
        #expect(first.saved.map(\.id) == [1] && first.deleted == [2])
        #expect(next.saved.map(\.id) == [1])

        var plain = configuration
        plain.changeFeed = .changesEndpoint()
        _ = try await HTTPRepository<Event>(baseURL: url, configuration: plain, transport: transport)
            .changes(since: nil, limit: 10, in: subset)
        #expect(
            transport.requests.map(\.line) == [
                "GET /events/changes?limit=10&owner=ana", "GET /events/changes?since=9&limit=10&owner=ana",
                "GET /events/changes?limit=10",
            ])
    }

    /// `SyncEndpoint`'s feed skips a condition it cannot read (the device checks every page),
    /// and refuses an order or an offset, which a page of changes has no use for.
    @Test func theEndpointsFeedSkipsAConditionItCannotRead() async throws {
        let endpoint = SyncEndpoint(store: InMemoryRepository(Self.scores(9)))
        func page(_ query: [URLQueryItem]) async -> SyncResponse {
            await endpoint.respond(to: SyncRequest(method: "GET", path: "/changes", query: query))
        }
        struct Page: Decodable {
            var saved: [Score]
            var deleted: [Int]
        }
        let skipped = await page([
            URLQueryItem(name: "shelf", value: "3"), URLQueryItem(name: "player", value: "ana"),
        ])
        #expect(skipped.status == 200)
        let answer = try JSONDecoder().decode(Page.self, from: skipped.body)
        #expect(answer.saved.map(\.id) == [3, 6, 9] && answer.deleted == [1, 2, 4, 5, 7, 8])
        #expect(await page([URLQueryItem(name: "order_by", value: "points")]).status == 400)
        #expect(await page([URLQueryItem(name: "offset", value: "2")]).status == 400)
    }

    /// Syncs until a sync works: the transport loses answers on purpose.
    static func syncUntilItWorks<Remote>(_ scores: OfflineFirstRepository<Remote, FileRepository<Score>>)
        async throws
    {
        for attempt in 1...40 {
            do {
                try await scores.sync()
                return
            } catch let error as RepositoryError where error.code == .unavailable && attempt < 40 {
                continue
            }
        }
    }
}

/// Passes requests to `base` and counts the feed's answers: the score bodies among `saved`
/// that reached the client, and those whose answer it lost on purpose (with `losing`, a
/// seeded share of the answers is dropped after the server acted on the request).
final class FeedCounter: HTTPTransport {
    private let base: any HTTPTransport
    private let losing: Double
    private struct State {
        var random: SeededRandomNumberGenerator
        var bodiesSent = 0
        var bodiesLost = 0
        var answersLost = 0
        var foreignBodies = 0
        var urls: [String] = []
    }
    private let state: Mutex<State>

    init(base: any HTTPTransport, losing: Double = 0, seed: UInt64 = 1) {
        self.base = base
        self.losing = losing
        state = Mutex(State(random: SeededRandomNumberGenerator(seed: seed)))
    }

    /// The score bodies the feed's answers delivered.
    var bodiesSent: Int { state.withLock { $0.bodiesSent } }
    /// The score bodies the feed sent (read or lost) whose player is not ana.
    var foreignBodies: Int { state.withLock { $0.foreignBodies } }
    /// How many answers were dropped.
    var answersLost: Int { state.withLock { $0.answersLost } }
    /// The score bodies in feed answers that were dropped.
    var bodiesLost: Int { state.withLock { $0.bodiesLost } }
    /// The path and query of every feed request.
    var feedRequests: [String] { state.withLock { $0.urls }.filter { $0.contains("/changes") } }
    /// The path and query of every other `GET`.
    var listRequests: [String] { state.withLock { $0.urls }.filter { !$0.contains("/changes") } }

    func reset() {
        state.withLock {
            $0.bodiesSent = 0
            $0.bodiesLost = 0
            $0.urls = []
        }
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await base.send(request)
        let url = response.url ?? request.url
        let line = (url?.path ?? "") + "?" + (url?.query ?? "")
        let isFeed = line.contains("/changes")
        // Not a page (a 410, a refusal): no bodies.
        let bodies = isFeed ? ((try? JSONDecoder().decode(SavedPlayers.self, from: data))?.saved ?? []) : []
        let saved = bodies.count
        let lost = state.withLock { state in
            state.foreignBodies += bodies.filter { $0.player != "ana" }.count
            if request.httpMethod == "GET" { state.urls.append(line) }
            let lost = losing > 0 && Double.random(in: 0..<1, using: &state.random) < losing
            if lost {
                state.answersLost += 1
                state.bodiesLost += saved
            } else {
                state.bodiesSent += saved
            }
            return lost
        }
        if lost { throw URLError(.networkConnectionLost) }
        return (data, response)
    }

    private struct SavedPlayers: Decodable {
        struct Body: Decodable { var player: String }
        var saved: [Body]
    }
}
