import Foundation
import RepositoriesHTTP
import RepositoriesTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The REST fixture server (`Fixtures/rest_server.py`) running in a child process on an
/// ephemeral loopback port.
///
/// Use it through ``withFixtureServer(_:)``, which stops it whatever the test does. Should
/// the test process die, the server sees its standard input close and exits by itself.
final class FixtureServer: Sendable {
    /// The child.
    let process: Process
    private let input: Pipe
    /// The port it listens on, on 127.0.0.1.
    let port: Int
    /// `http://127.0.0.1:<port>`.
    let root: URL
    /// A session of its own for the control endpoints, so they never queue behind the
    /// repository's requests.
    private let control: URLSession

    private init(process: Process, input: Pipe, port: Int) throws {
        self.process = process
        self.input = input
        self.port = port
        guard let root = URL(string: "http://127.0.0.1:\(port)") else {
            throw ServerError("bad port \(port)")
        }
        self.root = root
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        self.control = URLSession(configuration: configuration)
    }

    /// Starts a server and waits until it has printed its port.
    ///
    /// - Throws: ``PythonMissing`` when no `python3` is on the `PATH`; ``ServerError`` when
    ///   the script is missing or the server did not start.
    static func start() async throws -> FixtureServer {
        try await start(python: try locatePython(), script: try scriptURL())
    }

    /// Starts `script` with `python`, which must print its port on one line and serve on
    /// 127.0.0.1 until its standard input closes, and waits until it has printed its port.
    static func start(python: URL, script: URL) async throws -> FixtureServer {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        process.executableURL = python
        process.arguments = ["-u", script.path]
        process.standardInput = input
        process.standardOutput = output
        try process.runAlone()
        let line = await Self.firstLine(of: output.fileHandleForReading)
        guard let line, let port = Int(line.trimmingCharacters(in: .whitespaces)) else {
            Foundation.kill(process.processIdentifier, SIGKILL)
            await process.waitUntilExitOffThePool()
            throw ServerError("the fixture server did not print its port; it printed \(line ?? "nothing")")
        }
        return try FixtureServer(process: process, input: input, port: port)
    }

    /// Reads up to the first newline on a thread of its own, since the read blocks: not a
    /// dispatch thread either, which the cooperative pool shares.
    private static func firstLine(of handle: FileHandle) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var buffer = Data()
                while !buffer.contains(0x0A) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    buffer.append(chunk)
                }
                guard let newline = buffer.firstIndex(of: 0x0A) else {
                    continuation.resume(
                        returning: buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self))
                    return
                }
                continuation.resume(returning: String(decoding: buffer[..<newline], as: UTF8.self))
            }
        }
    }

    /// Stops the server and waits for the process to end.
    ///
    /// The server gets SIGKILL, which nothing blocks: closing its standard input does not end
    /// it when another child started meanwhile inherited the pipe's other end (two servers
    /// started at once can each hold the other's), and SIGTERM does not either, since a child
    /// started from a dispatch thread inherits a mask that blocks it. A CI run waited forever
    /// on such a server, spinning a cooperative thread in `waitUntilExit`; another waited
    /// forever with both cooperative threads in it, since Foundation notices a child's exit on
    /// the threads they held: the wait is off the pool now. Whatever a test reads from the
    /// server it reads before this.
    func stop() async {
        try? input.fileHandleForWriting.close()  // the child may have gone already
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        await process.waitUntilExitOffThePool()
        control.invalidateAndCancel()
    }

    /// The URL of a new, empty collection: `/items-<uuid>`.
    func newCollection(_ prefix: String = "items") -> URL {
        root.appending(path: "\(prefix)-\(UUID().uuidString.lowercased())")
    }

    // MARK: - Scripting

    /// One scripted answer.
    enum Scripted: Sendable {
        /// A plain answer: status, headers, body.
        case status(Int, headers: [String: String] = [:], body: String = "")
        /// 200 with a body that is not JSON.
        case garbage
        /// Headers at once, the body after `delay` seconds.
        case slow(delay: Double)
        /// Headers and half a body, then the connection is closed.
        case drop
        /// The ordinary answer.
        case pass
        /// The request is applied, but the connection closes before the answer.
        case loseAnswer

        var json: [String: Any] {
            switch self {
            case .status(let status, let headers, let body):
                ["status": status, "headers": headers, "body": body]
            case .garbage: ["action": "garbage"]
            case .slow(let delay): ["action": "slow", "delay": delay]
            case .drop: ["action": "drop"]
            case .pass: ["action": "pass"]
            case .loseAnswer: ["action": "lose-answer"]
            }
        }
    }

    /// Makes the next requests to `collection` answer `responses`, one each, in order.
    func script(_ collection: URL, _ responses: [Scripted]) async throws {
        let body = try JSONSerialization.data(withJSONObject: [
            "collection": collection.lastPathComponent, "responses": responses.map(\.json),
        ])
        _ = try await call("POST", "/__script", body: body)
    }

    /// A request the server received.
    struct LoggedRequest: Decodable, Sendable {
        var method: String
        var path: String
        var headers: [String: String]
        /// The body of a write, as text.
        var body: String?
        /// The status answered (`"200"`), or the scripted action (`"drop"`).
        var status: String?
        /// Whether the server answered from an earlier request with the same idempotency key.
        var replayed: Bool?

        /// `"GET /items-…/1"`.
        var line: String { "\(method) \(path)" }

        /// The header `name`, whatever its case.
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    /// The requests `collection` received, in order.
    func log(_ collection: URL) async throws -> [LoggedRequest] {
        let data = try await call("GET", "/__log?collection=\(collection.lastPathComponent)")
        return try JSONDecoder().decode([LoggedRequest].self, from: data)
    }

    /// Waits, on the server, until `collection` has received `requests` requests and
    /// `aborted` clients have hung up on a slow answer.
    func wait(for collection: URL, requests: Int = 0, aborted: Int = 0) async throws {
        let query =
            "collection=\(collection.lastPathComponent)&requests=\(requests)&aborted=\(aborted)&timeout=20"
        // The server answers 408 after 20 s. On a machine the whole suite loads, a task may
        // wait that long for a thread before it sends its request, so it is asked again, for
        // up to two minutes in all, before the test fails.
        for attempt in 1...6 {
            do {
                _ = try await call("GET", "/__wait?\(query)")
                return
            } catch let error as ServerError where error.status == 408 && attempt < 6 {
                continue
            }
        }
    }

    /// Forgets `collection`'s tombstones: a feed cursor from before now answers `410`.
    func forgetDeletions(_ collection: URL) async throws {
        _ = try await call("POST", "/__forget-deletions?collection=\(collection.lastPathComponent)")
    }

    /// The raw body of `GET path`, bypassing the repository.
    func raw(_ url: URL) async throws -> Data {
        try await call("GET", url.path)
    }

    /// Sends `method path` to the server's root, bypassing any repository; throws unless it answers 2xx.
    func call(_ method: String, _ path: String, body: Data? = nil) async throws -> Data {
        guard let url = URL(string: root.absoluteString + path) else { throw ServerError("bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.timeoutInterval = 30
        let (data, response) = try await controlExchange(request, on: control)
        let status = response.statusCode
        guard (200..<300).contains(status) else {
            throw ServerError(
                "\(method) \(path) answered \(status): \(String(decoding: data, as: UTF8.self))",
                status: status)
        }
        return data
    }

    // MARK: - Finding python3 and the script

    /// `python3` on the `PATH`.
    ///
    /// - Throws: ``PythonMissing`` when there is none.
    static func locatePython(
        path: String? = ProcessInfo.processInfo.environment["PATH"]
    ) throws -> URL {
        for directory in (path ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appending(path: "python3")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw PythonMissing()
    }

    /// The fixture script, copied beside the test bundle as a resource.
    static func scriptURL() throws -> URL {
        try fixture("rest_server.py")
    }

    /// The file at `path` under `Fixtures/`, copied beside the test bundle as a resource.
    static func fixture(_ path: String) throws -> URL {
        guard let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw ServerError("Fixtures/ is missing from the test bundle's resources")
        }
        let url = fixtures.appending(path: path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ServerError("Fixtures/\(path) is missing from the test bundle's resources")
        }
        return url
    }
}

/// No `python3` on this machine: the HTTP tests cannot start their server.
struct PythonMissing: Error, CustomStringConvertible {
    var description: String {
        let ci = ProcessInfo.processInfo.environment["CI"] == "true" ? " (CI=true)" : ""
        return
            "python3 was not found on the PATH\(ci). The RepositoriesHTTP tests run a real HTTP server "
            + "written in Python's standard library (Tests/RepositoriesHTTPTests/Fixtures/rest_server.py); "
            + "install python3 to run them. They fail rather than pass without it."
    }
}

/// The fixture server misbehaved.
struct ServerError: Error, CustomStringConvertible {
    var description: String
    /// The HTTP status the server answered, when it answered.
    var status: Int?
    init(_ description: String, status: Int? = nil) {
        self.description = description
        self.status = status
    }
}

/// Sends a test's own request to a fixture server, failing after 60 s whatever the session
/// does: a local run once waited forever on a request whose connection the server had closed,
/// which FoundationNetworking never completed, and a test must fail, not hang the suite.
func controlExchange(_ request: URLRequest, on session: URLSession) async throws -> (Data, HTTPURLResponse) {
    try await withThrowingTaskGroup(of: (Data, HTTPURLResponse)?.self) { group in
        group.addTask { try await URLSessionTransport(session: session).send(request) }
        group.addTask {
            try await Task.sleep(for: .seconds(60))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let answer = first else {
            let line = "\(request.httpMethod ?? "GET") \(request.url?.path ?? "")"
            throw ServerError("\(line) had no answer within 60 s")
        }
        return answer
    }
}

/// Runs `body` with a fresh fixture server, and stops the server afterwards, whether
/// `body` returns or throws.
@discardableResult
func withFixtureServer<T>(_ body: (FixtureServer) async throws -> T) async throws -> T {
    let server = try await FixtureServer.start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
