import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A private PostgreSQL server for tests and the benchmark: `initdb` in a new temporary
/// directory, `postgres` on 127.0.0.1 and a free port, stopped and removed when the process
/// exits, however it exits.
///
/// ```swift
/// let server = try await PostgresTestServer.shared()
/// let notes = try await PostgresRepository<Note>(connectionString: server.connectionString)
/// ```
///
/// PostgreSQL refuses to run as root. When this process is root, the server runs as an
/// unprivileged system user (`REPOSITORIES_POSTGRES_OS_USER`, else `postgres`, else
/// `nobody`) through `setpriv`, and its directory belongs to that user.
///
/// The server's parent is a small watchdog shell: it polls this process every half second
/// and, once this process is gone (a crash, `kill -9`, a test that never returns), stops the
/// server with a fast shutdown and removes its directory. A normal exit stops it at once,
/// from an `atexit` hook. The binaries are looked for in `REPOSITORIES_POSTGRES_BIN`, then
/// `pg_config --bindir`, `/usr/lib/postgresql/<newest>/bin`, Homebrew's and `/usr/local`'s
/// prefixes, and `PATH`.
public final class PostgresTestServer: Sendable {
    /// The TCP port on 127.0.0.1.
    public let port: Int
    /// The directory holding the cluster (`data/`), its socket and its log.
    public let directory: URL
    /// The operating-system user the server runs as.
    public let osUser: String
    /// That user's IDs, when this process is root and switches to it.
    private let osIDs: (user: uid_t, group: gid_t)?
    /// The directory of `postgres`, `initdb`, `psql` and `pg_isready`.
    public let binDirectory: URL
    /// The database user, whose password is ``password``.
    public let user = "repositories"
    /// The database user's password (the server asks for it on TCP, with SCRAM).
    public let password = "repositories-test-password"
    private let durable: Bool
    private let process = Mutex<Process?>(nil)

    /// A libpq connection string for the `postgres` database, as ``user``.
    public var connectionString: String {
        "host=127.0.0.1 port=\(port) dbname=postgres user=\(user) password=\(password) sslmode=disable"
    }

    /// The server's log, for failure messages.
    public var log: String {
        (try? String(contentsOf: directory.appending(path: "server.log"), encoding: .utf8)) ?? "(no log)"
    }

    /// Why a server could not be started: what was tried and what it said.
    public struct Unavailable: Error, CustomStringConvertible {
        /// What went wrong, and how to fix it.
        public var description: String
    }

    // MARK: Sharing one server

    private static let sharedServer = Mutex<Task<PostgresTestServer, any Error>?>(nil)

    /// The server every test of this process shares, started on first use.
    ///
    /// - Throws: ``Unavailable`` (every later call throws it too) when no server could be
    ///   started.
    public static func shared() async throws -> PostgresTestServer {
        let task = sharedServer.withLock { task in
            if let task { return task }
            let started = Task { try await start() }
            task = started
            return started
        }
        return try await task.value
    }

    /// Starts a server of its own, off the cooperative thread pool (`initdb` takes seconds).
    ///
    /// - Parameter durable: whether the server syncs its commits to disk (`fsync=on`), as a
    ///   production server does; tests leave it off for speed.
    public static func start(durable: Bool = false) async throws -> PostgresTestServer {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try PostgresTestServer(durable: durable) })
            }
        }
    }

    private init(durable: Bool) throws {
        self.durable = durable
        binDirectory = try Self.findBinaries()
        let isRoot = geteuid() == 0
        if isRoot {
            let (name, entry) = try Self.unprivilegedUser()
            osUser = name
            osIDs = (entry.pw_uid, entry.pw_gid)
        } else {
            osUser = ProcessInfo.processInfo.environment["USER"] ?? "the current user"
            osIDs = nil
        }
        directory = FileManager.default.temporaryDirectory.appending(
            path: "repositories-postgres-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(password.utf8).write(to: directory.appending(path: "pwfile"))
        if let osIDs { try Self.giveOwnership(of: directory, to: osIDs) }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        port = try Self.freePort()
        try runAsServerUser(
            "initdb",
            [
                "-D", directory.appending(path: "data").path, "-U", user,
                "--pwfile=\(directory.appending(path: "pwfile").path)", "--auth-local=trust",
                "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync",
            ])
        Self.register(self)
        try launchBlocking()
    }

    // MARK: Starting and stopping

    /// Starts (or starts again, after ``stop()``) the server on its port, and waits until it
    /// accepts connections.
    public func launch() async throws {
        try await offThePool { try self.launchBlocking() }
    }

    private func launchBlocking() throws {
        let readiesBefore = readyLines()
        let parent = getpid()
        let data = directory.appending(path: "data").path
        var server = serverCommand("postgres")
        server += [
            "-D", data, "-h", "127.0.0.1", "-p", String(port), "-k", directory.path, "-c",
            "max_connections=300",
        ]
        if !durable { server += ["-c", "fsync=off", "-c", "full_page_writes=off"] }
        // The watchdog: start the server, then stop it (and remove its directory) once the
        // test process is gone; end when the server ends.
        // A killed test process stays a zombie until its own parent (`swift test`) reaps it,
        // and `kill -0` still finds a zombie, so its state in /proc counts too.
        let script = """
            alive() {
                kill -0 "$PARENT" 2>/dev/null || return 1
                [ -r "/proc/$PARENT/stat" ] || return 0
                [ "$(sed 's/.*) //' "/proc/$PARENT/stat" | cut -c1)" != Z ]
            }
            "$@" >>"$LOG" 2>&1 &
            server=$!
            while alive && kill -0 "$server" 2>/dev/null; do sleep 0.5; done
            if ! alive; then
                kill -INT "$server" 2>/dev/null; wait "$server"; rm -rf "$DIRECTORY"
            fi
            wait "$server"
            """
        let watchdog = Process()
        watchdog.executableURL = URL(filePath: "/bin/sh")
        watchdog.arguments = ["-c", script, "postgres-watchdog"] + server
        watchdog.environment = [
            "PARENT": String(parent), "LOG": directory.appending(path: "server.log").path,
            "DIRECTORY": directory.path, "PATH": "/usr/bin:/bin",
        ]
        watchdog.currentDirectoryURL = directory
        // Not this process's standard output: `swift test` reads it until every holder has
        // closed it, and would wait for the server.
        watchdog.standardInput = FileHandle.nullDevice
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try watchdog.runAlone()
        process.withLock { $0 = watchdog }
        try waitUntilReady(watchdog, readiesBefore: readiesBefore)
    }

    /// How many times the server's log says it is ready to accept connections.
    private func readyLines() -> Int {
        log.components(separatedBy: "database system is ready to accept connections").count - 1
    }

    /// Waits until the server's log says it is ready once more than `readiesBefore` times.
    ///
    /// The log, not `pg_isready`: a child process's exit is noticed on dispatch threads the
    /// test run keeps busy, and a CI run waited out the 60 s on `pg_isready` while its server's
    /// log said it was ready within a second.
    private func waitUntilReady(_ watchdog: Process, readiesBefore: Int) throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if readyLines() > readiesBefore { return }
            // Read after the log: a server that was ready and then stopped has said so there.
            guard watchdog.isRunning else {
                throw Unavailable(description: "PostgreSQL exited while starting; its log:\n\(log)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw Unavailable(description: "PostgreSQL did not accept connections within 60 s; its log:\n\(log)")
    }

    /// Stops the server with a fast shutdown (open connections are closed, committed work
    /// stays) and waits until it is gone; ``launch()`` starts it again on the same port.
    public func stop() {
        guard process.withLock({ $0 }) != nil, let pid = serverPID() else { return }
        kill(pid, SIGINT)
        // A clean shutdown removes postmaster.pid last. Polled rather than waited for, since
        // this also runs from an `atexit` hook.
        let pidFile = directory.appending(path: "data/postmaster.pid").path
        let deadline = Date().addingTimeInterval(30)
        while FileManager.default.fileExists(atPath: pidFile), kill(pid, 0) == 0, Date() < deadline {
            usleep(20_000)
        }
        process.withLock { $0 = nil }
    }

    /// The postmaster's process ID, from the first line of `postmaster.pid`.
    private func serverPID() -> pid_t? {
        let file = directory.appending(path: "data/postmaster.pid")
        guard let text = try? String(contentsOf: file, encoding: .utf8),  // absent: not running
            let line = text.split(separator: "\n").first
        else { return nil }
        return pid_t(line.trimmingCharacters(in: .whitespaces))
    }

    /// Runs `psql` with `sql` as ``user`` and returns its unaligned, tuples-only output.
    ///
    /// - Throws: ``Unavailable`` with psql's output when it fails.
    @discardableResult
    public func psql(_ sql: String) async throws -> String {
        try await offThePool { try self.psqlBlocking(sql) }
    }

    private func psqlBlocking(_ sql: String) throws -> String {
        let result = try Self.run(
            binDirectory.appending(path: "psql"),
            ["-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", connectionString, "-c", sql])
        guard result.status == 0 else {
            throw Unavailable(description: "psql failed (\(result.status)) running \(sql): \(result.output)")
        }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts `psql` running `sql` in the background (to hold a lock, say); the caller waits
    /// for or terminates the process.
    public func psqlInBackground(_ sql: String) throws -> Process {
        let process = Process()
        process.executableURL = binDirectory.appending(path: "psql")
        process.arguments = ["-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", connectionString, "-c", sql]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runAlone()
        return process
    }

    // MARK: Stopping at exit

    private static let running = Mutex<[PostgresTestServer]>([])

    private static func register(_ server: PostgresTestServer) {
        let first = running.withLock { servers in
            servers.append(server)
            return servers.count == 1
        }
        if first { atexit { PostgresTestServer.stopAllAtExit() } }
    }

    private static func stopAllAtExit() {
        for server in running.withLock({ $0 }) {
            server.stop()
            try? FileManager.default.removeItem(at: server.directory)  // at exit: nobody to tell
        }
    }

    // MARK: Finding things

    private static func findBinaries() throws -> URL {
        let manager = FileManager.default
        let hasServer = { (directory: URL) in
            ["postgres", "initdb", "pg_isready", "psql"].allSatisfy {
                manager.isExecutableFile(atPath: directory.appending(path: $0).path)
            }
        }
        var candidates: [URL] = []
        let environment = ProcessInfo.processInfo.environment
        if let configured = environment["REPOSITORIES_POSTGRES_BIN"] {
            candidates.append(URL(filePath: configured))
        }
        if let pgConfig = try? run(URL(filePath: "/usr/bin/env"), ["pg_config", "--bindir"]),
            pgConfig.status == 0
        {
            candidates.append(URL(filePath: pgConfig.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        for root in ["/usr/lib/postgresql", "/opt/homebrew/opt", "/usr/local/opt"] {
            let versions = (try? manager.contentsOfDirectory(atPath: root)) ?? []  // absent: try the next
            let named = versions.filter { root.hasSuffix("postgresql") || $0.hasPrefix("postgresql") }
            for version in named.sorted(by: { $0.compare($1, options: .numeric) == .orderedDescending }) {
                candidates.append(URL(filePath: root).appending(path: version).appending(path: "bin"))
            }
        }
        candidates.append(URL(filePath: "/usr/local/pgsql/bin"))
        for path in (environment["PATH"] ?? "").split(separator: ":") {
            candidates.append(URL(filePath: String(path)))
        }
        guard let found = candidates.first(where: hasServer) else {
            throw Unavailable(
                description: """
                    no PostgreSQL server binaries (postgres, initdb, pg_isready, psql) were found in \
                    \(candidates.map(\.path)); install them (apt-get install postgresql, brew install \
                    postgresql@16) or set REPOSITORIES_POSTGRES_BIN to their directory
                    """)
        }
        return found
    }

    private static func unprivilegedUser() throws -> (String, passwd) {
        let candidates = [
            ProcessInfo.processInfo.environment["REPOSITORIES_POSTGRES_OS_USER"], "postgres", "nobody",
        ]
        for case let name? in candidates {
            if let entry = getpwnam(name), entry.pointee.pw_uid != 0 { return (name, entry.pointee) }
        }
        throw Unavailable(
            description:
                "running as root, and no unprivileged user (postgres, nobody) exists to run PostgreSQL as")
    }

    private static func giveOwnership(of url: URL, to ids: (user: uid_t, group: gid_t)) throws {
        let items =
            [url.path]
            + (try FileManager.default.contentsOfDirectory(atPath: url.path)).map {
                url.appending(path: $0).path
            }
        for item in items where chown(item, ids.user, ids.group) != 0 {
            throw Unavailable(description: "could not give \(item) to user \(ids.user): errno \(errno)")
        }
    }

    /// A port on 127.0.0.1 that nothing listens on right now.
    private static func freePort() throws -> Int {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Unavailable(description: "socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw Unavailable(description: "could not find a free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    // MARK: Running commands

    /// `executable` as the server's user: through `setpriv` when this process is root.
    private func serverCommand(_ executable: String) -> [String] {
        let path = binDirectory.appending(path: executable).path
        guard let osIDs else { return [path] }
        return [
            "/usr/bin/setpriv", "--reuid=\(osIDs.user)", "--regid=\(osIDs.group)", "--clear-groups", "--",
            path,
        ]
    }

    private func runAsServerUser(_ executable: String, _ arguments: [String]) throws {
        let command = serverCommand(executable)
        let result = try Self.run(
            URL(filePath: command[0]), Array(command.dropFirst()) + arguments, in: directory)
        guard result.status == 0 else {
            throw Unavailable(
                description: "\(executable) failed (\(result.status)) as \(osUser): \(result.output)")
        }
    }

    private static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.runAlone()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
