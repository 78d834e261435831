import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Queries sent as the API's own parameters: against the fixture's PostgREST tables, a real
/// FastAPI app and a real Django REST Framework app (django-filter), every answer is the one
/// the device computes over the whole collection, a list screen asks for the rows it shows,
/// and an API that ignores a parameter is caught.
@Suite struct HTTPQueryTests {
    /// A PostgREST table of `count` specimens (no NaN or infinite mass, which JSON cannot
    /// carry), written in one upsert.
    static func specimenTable(
        _ server: FixtureServer, count: Int, seed: UInt64, codePointTextOrder: Bool = true,
        transport: any HTTPTransport = URLSessionTransport()
    ) async throws -> HTTPRepository<Specimen> {
        let url = server.root.appending(path: "rest/v1/specimens-\(UUID().uuidString.lowercased())")
        // The declared names are the columns': `found_at` for `foundAt`.
        // Read in the order of the key, which the queries' ties fall back to.
        var configuration = HTTPRepository<Specimen>.Configuration.postgREST(
            apiKey: "anon-key", order: "id", codePointTextOrder: codePointTextOrder)
        configuration.coding = configuration.coding.convertingKeysToSnakeCase()
        let specimens = HTTPRepository<Specimen>(
            baseURL: url, configuration: configuration, transport: transport)
        var random = SeededRandomNumberGenerator(seed: seed)
        let rows = (0..<count).map { id in
            var specimen = Specimen.random(id, &random)
            if let mass = specimen.mass, !mass.isFinite { specimen.mass = nil }
            return specimen
        }
        try await specimens.save(contentsOf: rows.shuffled(using: &random))
        return specimens
    }

    @Test(arguments: [true, false])
    func postgRESTAnswersWhatTheDeviceAnswers(codePointTextOrder: Bool) async throws {
        try await withFixtureServer { server in
            let specimens = try await Self.specimenTable(
                server, count: 150, seed: 21, codePointTextOrder: codePointTextOrder)
            let everything = try await specimens.fetchAll()
            #expect(everything.count == 150)
            var random = SeededRandomNumberGenerator(seed: 8)
            for round in 0..<4 {
                for (name, query) in Specimen.randomQueries(&random) {
                    let expected = try query.apply(to: everything).map(\.id)
                    #expect(try await specimens.fetch(query).map(\.id) == expected, "round \(round): \(name)")
                    #expect(
                        try await specimens.count(query) == expected.count, "round \(round): count \(name)")
                }
            }
        }
    }

    @Test func aListScreenAsksForTheRowsItShows() async throws {
        try await withFixtureServer { server in
            let transport = CountingTransport()
            let specimens = try await Self.specimenTable(server, count: 1_000, seed: 4, transport: transport)
            let everything = try await specimens.fetchAll()

            let screen = Query<Specimen>().where(\.year < 1_997).sorted(by: \.year, .descending).offset(40)
                .limit(20)
            let before = transport.urls.count
            let shown = try await specimens.fetch(screen)
            let asked = transport.urls.dropFirst(before)
            #expect(shown.map(\.id) == (try screen.apply(to: everything)).map(\.id))
            #expect(asked.count == 1, "one request: \(asked)")
            #expect(asked.first?.query?.contains("offset=40&limit=20") == true, "\(asked)")
            #expect(asked.first?.query?.contains("year=lt.1997") == true, "\(asked)")

            // A closure filter runs on the device: the sorted answer is read a window at a time,
            // and only as far as the screen needs.
            let filtered = screen.filter { $0.id % 2 == 0 }
            let beforeFiltered = transport.urls.count
            #expect(
                try await specimens.fetch(filtered).map(\.id)
                    == (try filtered.apply(to: everything)).map(\.id))
            #expect(transport.urls.count - beforeFiltered == 1, "a window of 1,000 holds the 60 rows needed")

            let beforeCount = transport.urls.count
            #expect(
                try await specimens.count(Query().where(\.year < 1_997))
                    == everything.filter { $0.year < 1_997 }.count)
            #expect(transport.urls.count - beforeCount == 1)
        }
    }

    @Test func anAPIThatIgnoresAFilterIsCaughtNamingTheRow() async throws {
        try await withFixtureServer { server in
            let transport = CountingTransport(droppingParameter: "year")
            let specimens = try await Self.specimenTable(server, count: 40, seed: 2, transport: transport)
            let error = await #expect(throws: RepositoryError.self) {
                try await specimens.fetch(Query().where(\.year == 1_990).sorted(by: \.name).limit(5))
            }
            #expect(error?.code == .corrupted)
            #expect(
                error?.reason.contains("which does not meet year == 1990") == true,
                "\(String(describing: error))")
        }
    }

    @Test func anAPIThatSortsOtherwiseIsCaught() async throws {
        try await withFixtureServer { server in
            let transport = CountingTransport(droppingParameter: "order")
            let specimens = try await Self.specimenTable(server, count: 40, seed: 3, transport: transport)
            let error = await #expect(throws: RepositoryError.self) {
                try await specimens.fetch(Query().sorted(by: \.year).limit(30))
            }
            #expect(error?.code == .corrupted)
            #expect(error?.reason.contains("out of the order asked") == true, "\(String(describing: error))")
        }
    }

    @Test func aServerThatCapsItsWindowsIsReadOn() async throws {
        try await withFixtureServer { server in
            let transport = CountingTransport(cappingLimitAt: 7)
            let specimens = try await Self.specimenTable(server, count: 60, seed: 6, transport: transport)
            // Read whole by a repository the cap does not reach: fetchAll's pages would stop at 7.
            let everything = try await HTTPRepository<Specimen>(
                baseURL: specimens.baseURL, configuration: specimens.configuration
            ).fetchAll()
            #expect(everything.count == 60)
            let screen = Query<Specimen>().sorted(by: \.year, .descending).offset(3).limit(20)
            let before = transport.urls.count
            #expect(
                try await specimens.fetch(screen).map(\.id) == (try screen.apply(to: everything)).map(\.id))
            #expect(transport.urls.count - before == 3, "20 rows in windows of 7")
        }
    }

    @Test func anAPIThatIgnoresTheOffsetIsCaughtAtTheSecondWindow() async throws {
        try await withFixtureServer { server in
            let transport = CountingTransport(droppingParameter: "offset")
            let specimens = try await Self.specimenTable(server, count: 40, seed: 9, transport: transport)
            let error = await #expect(throws: RepositoryError.self) {
                // A closure filter: the answer is read a window at a time.
                try await specimens.fetch(Query().filter { $0.id >= 0 })
            }
            #expect(error?.code == .corrupted)
            #expect(error?.reason.contains("again") == true, "\(String(describing: error))")
        }
    }

    @Test func aWriteThatShiftsTheWindowsIsReadOnceAndAWindowReadTwiceIsCaught() async throws {
        /// Windows of 3 scores from `_start`; `shift` moves every window after the first one
        /// row back, as an insert before it would.
        func api(shift: Int, repeating repeated: Int? = nil) -> RecordingTransport {
            RecordingTransport { sent in
                let start =
                    URLComponents(url: sent.url, resolvingAgainstBaseURL: true)?.queryItems?
                    .first { $0.name == "_start" }?.value.flatMap(Int.init) ?? 0
                let from = start == 0 ? 0 : max(0, start - shift)
                var ids = (from..<min(from + 3, 8)).map { $0 + 1 }
                if let repeated, start > 0, ids.count > 1 { ids[1] = repeated }
                let rows = ids.map { #"{"id":\#($0),"player":"p","points":\#($0),"rating":0}"# }
                return (200, [:], "[" + rows.joined(separator: ",") + "]")
            }
        }
        let url = try #require(URL(string: "https://api.example.com/scores"))
        let query = Query<Score>().filter { $0.points > 0 }  // read a window at a time
        let shifted = HTTPRepository<Score>(
            baseURL: url, configuration: .jsonServer(pageSize: 3), transport: api(shift: 1))
        #expect(try await shifted.fetch(query).map(\.id) == [1, 2, 3, 4, 5, 6, 7, 8])
        let stuck = HTTPRepository<Score>(
            baseURL: url, configuration: .jsonServer(pageSize: 3), transport: api(shift: 3))
        let error = await #expect(throws: RepositoryError.self) { try await stuck.fetch(query) }
        #expect(error?.reason.contains("the rest of a window again") == true, "\(String(describing: error))")
        // A row of an earlier window in the middle of a later one is no shift.
        let scrambled = HTTPRepository<Score>(
            baseURL: url, configuration: .jsonServer(pageSize: 3), transport: api(shift: 0, repeating: 1))
        let repeated = await #expect(throws: RepositoryError.self) { try await scrambled.fetch(query) }
        #expect(
            repeated?.reason.contains("answered 1 in two windows") == true, "\(String(describing: repeated))")
    }

    @Test func conditionsTheAPIWouldMisreadStayOnTheDevice() async throws {
        struct Reading: Identifiable, Codable, Sendable, QueryableEntity {
            var id: Int
            var level: Float
            var limit: Int
            var points: Int
            static let queryableFields: [QueryableField<Reading>] = [
                QueryableField(\.level, name: "level"), QueryableField(\.limit, name: "limit"),
                QueryableField(\.points, name: "points"),
            ]
        }
        let transport = RecordingTransport { _ in (200, [:], "[]") }
        let url = try #require(URL(string: "https://api.example.com/readings/"))
        let readings = HTTPRepository<Reading>(
            baseURL: url, configuration: .fastAPI(queries: .lookups()), transport: transport)
        // A Float is written 0.1 in JSON but compared as 0.10000000149011612; `limit` is the
        // window's own parameter; Django and FastAPI read only the last of two `points__gte`.
        _ = try await readings.fetch(
            Query().where(\.level == 0.1).where(\.limit == 3).where(\.points >= 20).where(\.points >= 10)
                .sorted(by: \.level).limit(5))
        #expect(
            transport.requests.map(\.line) == [
                "GET /readings/?points__gte=20&order_by=level,id&offset=0&limit=100"
            ])
    }

    @Test func fastAPIAnswersWhatTheDeviceAnswers() async throws {
        try await withFramework(.fastAPI) { server in
            let transport = CountingTransport()
            let scores = HTTPRepository<Score>(
                baseURL: server.root.appending(path: "scores/"),
                configuration: .fastAPI(queries: .lookups(codePointTextOrder: true, tiebreak: [])),
                transport: transport)
            try await Self.expectSameAnswers(
                scores, seed: 31, transport: transport, order: "order_by=-points")
        }
    }

    @Test func djangoFilterAnswersWhatTheDeviceAnswers() async throws {
        try await withFramework(.djangoREST) { server in
            let transport = CountingTransport()
            let scores = HTTPRepository<Score>(
                baseURL: server.root.appending(path: "scores"),
                configuration: .djangoREST(queries: .djangoFilter(codePointTextOrder: true)),
                transport: transport)
            try await Self.expectSameAnswers(
                scores, seed: 41, transport: transport, order: "ordering=-points,id")
        }
    }

    @Test func syncEndpointRunsTheLookupsInItsStore() async throws {
        let store = InMemoryRepository<Score>()
        let transport = CountingTransport(
            base: SyncEndpointTransport(SyncEndpoint(store: store), at: "/scores"))
        var configuration = HTTPRepository<Score>.Configuration()
        configuration.queries = .lookups(codePointTextOrder: true, tiebreak: [])
        let scores = HTTPRepository<Score>(
            baseURL: try #require(URL(string: "https://api.example.com/scores")),
            configuration: configuration,
            transport: transport)
        try await Self.expectSameAnswers(scores, seed: 51, transport: transport, order: "order_by=-points")

        let unknown = SyncRequest(
            method: "GET", path: "", query: [URLQueryItem(name: "shelf__lt", value: "3")])
        let refused = await SyncEndpoint(store: store).respond(to: unknown)
        #expect(refused.status == 400)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("No declared field is named shelf"))
        let badValue = SyncRequest(
            method: "GET", path: "", query: [URLQueryItem(name: "points__gt", value: "many")])
        #expect(await SyncEndpoint(store: store).respond(to: badValue).status == 400)
    }

    /// Saves 120 random scores through `scores`, checks that a list screen's page is one
    /// request carrying the lookups, then checks random queries against the device's answer
    /// over the whole collection.
    static func expectSameAnswers(
        _ scores: HTTPRepository<Score>, seed: UInt64, transport: CountingTransport, order: String
    ) async throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        for id in (1...120).shuffled(using: &random) {
            try await scores.save(Score.random(id, &random))
        }
        let everything = try await scores.fetchAll()
        #expect(everything.count == 120)
        let screen = Query<Score>().where(.all(\.points < 50, .hasPrefix(\.player, "A"))).sorted(
            by: \.points, .descending
        )
        .offset(2).limit(5)
        let before = transport.urls.count
        #expect(try await scores.fetch(screen).map(\.id) == (try screen.apply(to: everything)).map(\.id))
        let asked = transport.urls.dropFirst(before).map { $0.query ?? "" }
        #expect(asked == ["points__lt=50&player__gte=A&player__lt=B&\(order)&offset=2&limit=5"])
        for round in 0..<3 {
            for (name, query) in Score.randomQueries(&random) {
                let expected = try query.apply(to: everything).map(\.id)
                #expect(try await scores.fetch(query).map(\.id) == expected, "round \(round): \(name)")
                #expect(try await scores.count(query) == expected.count, "round \(round): count \(name)")
            }
        }
    }

    @Test func jsonServerGetsItsOwnFiltersSortAndWindow() async throws {
        let transport = RecordingTransport { _ in (200, ["X-Total-Count": "0"], "[]") }
        let url = try #require(URL(string: "https://api.example.com/scores"))
        let scores = HTTPRepository<Score>(baseURL: url, configuration: .jsonServer(), transport: transport)
        _ = try await scores.fetch(
            Query().where(.all(\.points >= 10, \.player != "Ab", .isIn(\.points, [10, 20])))
                .sorted(by: \.points, .descending).offset(40).limit(20))
        _ = try await scores.fetch(Query().where(\.points < 10).sorted(by: \.player).limit(5))
        _ = try await scores.count(Query().where(\.player == "a+b"))
        #expect(
            transport.requests.map(\.line) == [
                "GET /scores?points_gte=10&player_ne=Ab&points=10&points=20&_sort=points&_order=desc&_start=40&_limit=20",
                // `<` and a text sort are JavaScript's, not Swift's: the device runs them.
                "GET /scores?_start=0&_limit=1000",
                "GET /scores?_limit=1&player=a%2Bb",
            ])
    }

    @Test func postgRESTWritesNilAsSwiftOrdersIt() async throws {
        let transport = RecordingTransport { _ in (200, ["Content-Range": "*/0"], "[]") }
        let url = try #require(URL(string: "https://project.supabase.co/rest/v1/specimens"))
        let specimens = HTTPRepository<Specimen>(
            baseURL: url, configuration: .postgREST(apiKey: "k", order: "created_at"), transport: transport)
        _ = try await specimens.fetch(
            Query().where(.all(\.mass < 2.5, .not(.hasPrefix(\.note, "Ab")), \.name == "a,b"))
                .sorted(by: \.mass, .descending).limit(20))
        #expect(
            transport.requests.map(\.line) == [
                // Values that hold PostgREST's syntax (a `.`) are quoted inside a tree.
                "GET /rest/v1/specimens?name=eq.a,b&and=(or(mass.lt.%222.5%22,mass.is.null),or(note.not.like.Ab*,note.is.null))"
                    + "&order=mass.desc.nullslast,created_at,id&offset=0&limit=20"
            ])

        // Docs/Queries.md's list screen.
        let scores = HTTPRepository<Score>(
            baseURL: try #require(URL(string: "https://project.supabase.co/rest/v1/scores")),
            configuration: .postgREST(apiKey: "k", order: "created_at", codePointTextOrder: true),
            transport: transport)
        _ = try await scores.fetch(
            Query<Score>().where(\.points < 500_000).sorted(by: \.points, .descending).limit(20))
        #expect(
            transport.requests.last?.line
                == "GET /rest/v1/scores?points=lt.500000&order=points.desc.nullslast,created_at,id&offset=0&limit=20"
        )
    }
}

/// A score of a game: the entity the FastAPI and DRF apps' `/scores/` serve.
struct Score: Identifiable, Codable, Sendable, Equatable, QueryableEntity {
    var id: Int
    var player: String
    var points: Int
    var rating: Double
    var level: Int?
    var finishedAt: Date?

    static let queryableFields: [QueryableField<Score>] = [
        QueryableField(\.player, name: "player"),
        QueryableField(\.points, name: "points"),
        QueryableField(\.rating, name: "rating"),
        QueryableField(\.level, name: "level"),
        QueryableField(\.finishedAt, name: "finished_at"),
    ]

    /// Players in normalization form C (the APIs compare text as they store it), with `+`, `,`
    /// and LIKE's pattern characters.
    static let players = [
        "Ab", "Aba", "Allende", "allende", "Ñ", "Éa", "東京", "🚀x", "Z", "", "%a", "_b", "a+b", "a,b",
    ]

    static func random(_ id: Int, _ random: inout SeededRandomNumberGenerator) -> Score {
        Score(
            id: id, player: players.randomElement(using: &random)!,
            points: Int.random(in: 0..<8, using: &random) * 10,
            rating: [0, 1.5, 2, -3, 0.1].randomElement(using: &random)!,
            level: Bool.random(using: &random) ? nil : Int.random(in: 1...4, using: &random),
            finishedAt: Bool.random(using: &random)
                ? nil
                : Date(
                    timeIntervalSince1970: 1_700_000_000 + Double(Int.random(in: 0..<5, using: &random))
                        * 3_600))
    }

    static func randomQueries(_ random: inout SeededRandomNumberGenerator) -> [(String, Query<Score>)] {
        let points = Int.random(in: 0..<8, using: &random) * 10
        let player = players.randomElement(using: &random)!
        let level = Int.random(in: 1...4, using: &random)
        let limit = Int.random(in: 0...25, using: &random)
        let offset = Int.random(in: 0...5, using: &random)
        let moment = Date(timeIntervalSince1970: 1_700_000_000 + 7_200)
        return [
            (
                "points < \(points) desc",
                Query().where(\.points < points).sorted(by: \.points, .descending).limit(limit)
            ),
            (
                "points >= \(points)",
                Query().where(\.points >= points).sorted(by: \.points).offset(offset).limit(limit)
            ),
            ("points == \(points)", Query().where(\.points == points)),
            ("points != \(points)", Query().where(\.points != points).sorted(by: \.rating).limit(limit)),
            ("points in", Query().where(.isIn(\.points, [points, points + 10])).sorted(by: \.player)),
            ("player == \(player)", Query().where(\.player == player)),
            (
                "player < \(player)",
                Query().where(\.player < player).sorted(by: \.player, .descending).limit(limit)
            ),
            (
                "player prefix",
                Query().where(.hasPrefix(\.player, String(player.prefix(1)))).sorted(by: \.player)
            ),
            ("player in", Query().where(.isIn(\.player, [player, "a,b", "Z"])).limit(limit)),
            ("rating > 0.1", Query().where(\.rating > 0.1).sorted(by: \.rating, .descending).offset(offset)),
            ("level nil", Query().where(.isNil(\.level)).sorted(by: \.points).limit(limit)),
            ("level < \(level)", Query().where(\.level < level).sorted(by: \.points)),
            ("level > \(level)", Query().where(\.level > level).sorted(by: \.level)),
            ("level != nil", Query().where(\.level != nil).sorted(by: \.points, .descending).limit(limit)),
            ("finished after", Query().where(\.finishedAt >= moment).sorted(by: \.points).limit(limit)),
            ("finished nil", Query().where(\.finishedAt == nil).offset(offset)),
            ("or", Query().where(.any(\.points > points, \.level == nil)).sorted(by: \.points)),
            ("not", Query().where(.not(\.points > points)).sorted(by: \.points, .descending).limit(limit)),
            (
                "filter",
                Query().where(\.points >= points).filter { $0.id % 3 == 0 }.sorted(by: \.points).limit(limit)
            ),
            (
                "computed sort",
                Query().where(\.points <= points).sorted(by: SortKey(by: { $0.id % 7 })).limit(limit)
            ),
            ("window only", Query().offset(offset).limit(limit)),
            ("everything sorted", Query<Score>().sorted(by: \.player).sorted(by: \.points, .descending)),
        ]
    }
}

/// A transport that records each request's URL and passes it to `base` (a real one by
/// default); for the tests of an API that ignores a parameter, it drops that parameter from
/// every `GET`, and for those of a server that caps its windows, it lowers every `limit`.
final class CountingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let dropped: String?
    private let sent = Mutex<[URL]>([])

    private let cap: Int?

    init(
        base: any HTTPTransport = URLSessionTransport(), droppingParameter dropped: String? = nil,
        cappingLimitAt cap: Int? = nil
    ) {
        self.base = base
        self.dropped = dropped
        self.cap = cap
    }

    /// The URLs sent, in order, as they left.
    var urls: [URL] { sent.withLock { $0 } }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        var request = request
        if let dropped, request.httpMethod == "GET", let url = request.url,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        {
            components.percentEncodedQuery = components.percentEncodedQuery?.split(separator: "&")
                .filter { !$0.hasPrefix(dropped + "=") }.joined(separator: "&")
            request.url = components.url
        }
        if let cap, request.httpMethod == "GET", let url = request.url,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        {
            components.queryItems = components.queryItems?.map { item in
                guard item.name == "limit", let asked = item.value.flatMap(Int.init) else { return item }
                return URLQueryItem(name: "limit", value: String(min(asked, cap)))
            }
            request.url = components.url
        }
        if let url = request.url { sent.withLock { $0.append(url) } }
        return try await base.send(request)
    }
}
