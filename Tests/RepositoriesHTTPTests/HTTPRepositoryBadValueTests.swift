import Foundation
import Repositories
import RepositoriesHTTP
import Synchronization
import Testing

/// Values a request cannot carry are refused before anything is sent, never trapped on and
/// never written in a form the server or the next read cannot take back: an ID that names no
/// single resource, and a date RFC 3339 cannot write.
@Suite struct HTTPRepositoryBadValueTests {
    /// IDs whose path segment addresses the collection itself, its parent, or another path
    /// once a server decodes `%2F` (or `%5C`) and resolves dot segments.
    static let unaddressableIDs = ["", ".", "..", "/", "a/..", "../b", "./", "a\\..\\b"]

    /// A server that echoes saves and answers `404` to any read of an item, so that only a
    /// refusal before the wire can make an operation fail.
    private static func echoServer() -> RecordingTransport {
        RecordingTransport { request in
            let json = ["Content-Type": "application/json"]
            switch request.method {
            case "PUT", "POST": return (200, json, request.body)
            case "DELETE": return (204, [:], "")
            default: return request.url.path.hasSuffix("/labels") ? (200, json, "[]") : (404, json, "{}")
            }
        }
    }

    private static let baseURL = URL(string: "https://api.example.com/v1/labels")

    @Test(arguments: unaddressableIDs)
    func anIDThatNamesNoSingleResourceIsRefusedBeforeAnyRequest(_ id: String) async throws {
        let transport = Self.echoServer()
        let base = try #require(Self.baseURL)
        let labels = HTTPRepository<Label>(baseURL: base, transport: transport)
        let bulk = HTTPRepository<Label>(baseURL: base, transport: transport) { configuration in
            configuration.endpoints.saveBatch = { _, resource in .post(resource.appending("bulk")) }
            configuration.endpoints.deleteBatch = { _, resource in .post(resource.appending("bulk-delete")) }
            configuration.endpoints.create = { label, resource in .put(resource.item(label.id)) }
        }
        let bad = Label(id: id, color: "red")
        let good = Label(id: "ok", color: "blue")
        let operations: [(String, () async throws -> Void)] = [
            ("fetch(id:)", { _ = try await labels.fetch(id: id) }),
            ("fetch(ids:)", { _ = try await labels.fetch(ids: ["ok", id]) }),
            ("save(_:)", { try await labels.save(bad) }),
            ("save(contentsOf:)", { try await labels.save(contentsOf: [good, bad]) }),
            ("delete(id:)", { try await labels.delete(id: id) }),
            ("delete(ids:)", { try await labels.delete(ids: ["ok", id]) }),
            ("fetchTagged(id:)", { _ = try await labels.fetchTagged(id: id) }),
            ("save(_:ifMatch:)", { try await labels.save(bad, ifMatch: "\"v1\"") }),
            ("saveIfAbsent(_:)", { try await labels.saveIfAbsent(bad) }),
            ("delete(id:ifMatch:)", { try await labels.delete(id: id, ifMatch: "\"v1\"") }),
            ("bulk save(contentsOf:)", { try await bulk.save(contentsOf: [good, bad]) }),
            ("bulk delete(ids:)", { try await bulk.delete(ids: ["ok", id]) }),
            ("create(_:) to the item", { _ = try await bulk.create(bad) }),
            ("create(contentsOf:) to the item", { _ = try await bulk.create(contentsOf: [good, bad]) }),
        ]
        for (name, operation) in operations {
            let error = await #expect(throws: RepositoryError.self, "\(name) of \"\(id)\"") {
                try await operation()
            }
            #expect(error?.code == .rejected, "\(name): \(String(describing: error))")
            #expect(
                error?.reason.contains("\"\(id)\"") == true, "\(name) names the ID: \(error?.reason ?? "")")
            #expect(error?.recovery?.isEmpty == false, "\(name) says what to do")
        }
        #expect(transport.requests.map(\.line) == [], "nothing is sent for an ID that names no resource")
    }

    @Test func idsThatNameOneResourceAreStillSent() async throws {
        let transport = Self.echoServer()
        let labels = HTTPRepository<Label>(baseURL: try #require(Self.baseURL), transport: transport)
        for id in ["...", "a.b", ".hidden", "a/b", "to do/später?#1 50%"] {
            try await labels.save(Label(id: id, color: "red"))
        }
        #expect(
            transport.requests.map(\.line) == [
                "PUT /v1/labels/%2E%2E%2E", "PUT /v1/labels/a.b", "PUT /v1/labels/.hidden",
                "PUT /v1/labels/a%2Fb", "PUT /v1/labels/to%20do%2Fsp%C3%A4ter%3F%231%2050%25",
            ])
    }

    @Test func aPlaceholderIDOfACreateTheServerNamesIsNotRefused() async throws {
        let transport = RecordingTransport { _ in
            (201, ["Content-Type": "application/json"], #"{"id":"n-1","color":"red"}"#)
        }
        let labels = HTTPRepository<Label>(baseURL: try #require(Self.baseURL), transport: transport)
        let created = try await labels.create(Label(id: "", color: "red"))
        #expect(created == Label(id: "n-1", color: "red"))
        #expect(transport.requests.map(\.line) == ["POST /v1/labels"])
    }

    // MARK: Dates

    /// Seconds since 1970 of instants RFC 3339 cannot write: not finite, beyond what any
    /// calendar arithmetic holds, after 9999-12-31T23:59:59.999999Z, before 0000-01-01T00:00:00Z.
    static let unwritableDates: [Double] = [
        .nan, .infinity, -.infinity, 1e19, -1e19, .greatestFiniteMagnitude,
        253_402_300_800, 253_402_300_800 + 86_400 * 365, -62_167_219_201, -62_167_219_200.5,
    ]

    private static func reminder(_ seconds: Double, _ index: Int = 1) -> Reminder {
        Reminder(
            id: UUID(uuidString: "00000000-0000-4000-8000-00000000000\(index)") ?? UUID(), listName: "home",
            dueDate: Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: unwritableDates)
    func aDateRFC3339CannotWriteIsRefusedAtEncodingNamingTheEntityAndField(_ seconds: Double) async throws {
        let transport = RecordingTransport { request in
            (200, ["Content-Type": "application/json"], request.body)
        }
        let base = try #require(URL(string: "https://api.example.com/reminders"))
        let plain = HTTPRepository<Reminder>(baseURL: base, transport: transport)
        let bulk = HTTPRepository<Reminder>(baseURL: base, transport: transport) { configuration in
            configuration.endpoints.saveBatch = { _, resource in .post(resource.appending("bulk")) }
            configuration.endpoints.createBatch = { _, resource in .post(resource.appending("bulk")) }
            configuration.coding = configuration.coding.convertingKeysToSnakeCase().wrappingRequests(in: "r")
        }
        let bad = Self.reminder(seconds, 2)
        let good = [Self.reminder(1_700_000_000, 1), Self.reminder(1_700_000_001, 3)]
        let operations: [(String, () async throws -> Void)] = [
            ("save(_:)", { try await plain.save(bad) }),
            ("save(contentsOf:)", { try await plain.save(contentsOf: [good[0], bad, good[1]]) }),
            ("save(_:ifMatch:)", { try await plain.save(bad, ifMatch: "\"v1\"") }),
            ("saveIfAbsent(_:)", { try await plain.saveIfAbsent(bad) }),
            ("create(_:)", { _ = try await plain.create(bad) }),
            ("create(contentsOf:)", { _ = try await plain.create(contentsOf: [good[0], bad]) }),
            ("bulk save(contentsOf:)", { try await bulk.save(contentsOf: [good[0], bad, good[1]]) }),
            ("bulk create(contentsOf:)", { _ = try await bulk.create(contentsOf: [good[0], bad]) }),
            ("wrapped save(_:)", { try await bulk.save(bad) }),
        ]
        for (name, operation) in operations {
            let error = await #expect(throws: RepositoryError.self, "\(name) of \(seconds)") {
                try await operation()
            }
            #expect(error?.code == .encodingFailed, "\(name): \(String(describing: error))")
            #expect(error?.id == bad.id.description, "\(name) names the entity: \(String(describing: error))")
            #expect(error?.reason.contains(bad.id.uuidString) == true, "\(name): \(error?.reason ?? "")")
            #expect(
                error?.reason.contains("dueDate") == true, "\(name) names the field: \(error?.reason ?? "")")
        }
        #expect(transport.requests.map(\.line) == [], "nothing is sent")
    }

    /// Keeps the body of each `PUT` and answers it to a `GET` of the same URL.
    private final class StoringServer: Sendable {
        private let bodies = Mutex<[String: String]>([:])

        func answer(_ request: RecordingTransport.Sent) -> RecordingTransport.Answer {
            let json = ["Content-Type": "application/json"]
            if request.method == "PUT" {
                bodies.withLock { $0[request.line.replacingOccurrences(of: "PUT ", with: "")] = request.body }
                return (200, json, request.body)
            }
            let body = bodies.withLock { $0[request.line.replacingOccurrences(of: "GET ", with: "")] }
            return body.map { (200, json, $0) } ?? (404, json, "{}")
        }
    }

    @Test func theFirstAndLastInstantsRFC3339WritesGoOutAndReadBackExactly() async throws {
        let server = StoringServer()
        let transport = RecordingTransport { server.answer($0) }
        let base = try #require(URL(string: "https://api.example.com/reminders"))
        let reminders = HTTPRepository<Reminder>(baseURL: base, transport: transport)
        let first = Self.reminder(-62_167_219_200, 1)
        let last = Self.reminder(253_402_300_799, 2)
        try await reminders.save(contentsOf: [first, last])
        let bodies = transport.requests.filter { $0.method == "PUT" }.map(\.body)
        #expect(bodies.count == 2)
        #expect(bodies.first?.contains("0000-01-01T00:00:00Z") == true, "\(bodies)")
        #expect(bodies.last?.contains("9999-12-31T23:59:59Z") == true, "\(bodies)")
        #expect(try await reminders.fetch(id: first.id) == first, "the echo of the first decodes as sent")
        #expect(try await reminders.fetch(id: last.id) == last, "the echo of the last decodes as sent")
    }
}
