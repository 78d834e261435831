internal import CPostgres
import Foundation
import Synchronization

/// What the listening connection heard, before it is turned into a ``PostgresChange`` of a
/// particular ID type.
enum PostgresNotice: Sendable {
    case keys([PostgresKey])
    case everything(PostgresChangeReason)
}

/// One connection that LISTENs on a repository's channel, on a thread of its own, and hands
/// every notification from another connection to each subscriber.
///
/// The thread starts with the first subscriber and runs until ``stop()``. It waits on the
/// connection's socket with `poll` (at most a fifth of a second, so that it notices a stop),
/// and reconnects, with a growing pause of up to two seconds, whenever the connection is lost
/// or cannot be opened.
final class PostgresListener: Sendable {
    private let target: PostgresConnectionTarget
    private let channel: String
    private let backends: PostgresBackends
    private let label: String
    private let state = Mutex(State())

    private struct Subscriber {
        var deliver: @Sendable (PostgresNotice) -> Void
        var finish: @Sendable () -> Void
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextToken: UInt64 = 0
        var started = false
        var stopped = false
        var listening = false
    }

    init(target: PostgresConnectionTarget, channel: String, backends: PostgresBackends, label: String) {
        self.target = target
        self.channel = channel
        self.backends = backends
        self.label = label
    }

    /// Adds a subscriber, starting the thread if it is the first; returns the token that
    /// removes it, or `nil` (after calling `finish`) when the listener was stopped.
    ///
    /// A subscriber that arrives while the connection listens is told
    /// ``PostgresChangeReason/startedListening`` at once; otherwise it is told when listening
    /// starts.
    func subscribe(
        deliver: @escaping @Sendable (PostgresNotice) -> Void, finish: @escaping @Sendable () -> Void
    ) -> UInt64? {
        let (token, startThread) = state.withLock { state -> (UInt64?, Bool) in
            guard !state.stopped else { return (nil, false) }
            let token = state.nextToken
            state.nextToken += 1
            state.subscribers[token] = Subscriber(deliver: deliver, finish: finish)
            if state.listening { deliver(.everything(.startedListening)) }
            defer { state.started = true }
            return (token, !state.started)
        }
        guard let token else {
            finish()
            return nil
        }
        if startThread {
            let thread = Thread { [self] in run() }
            thread.name = label
            thread.start()
        }
        return token
    }

    func unsubscribe(_ token: UInt64) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: token) }
    }

    /// Ends every subscriber's sequence and stops the thread (within a fifth of a second).
    func stop() {
        let subscribers = state.withLock { state in
            state.stopped = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func broadcast(_ notice: PostgresNotice, listening: Bool? = nil) {
        // Under the lock, so that every subscriber sees the notices in one order, and one
        // arriving now gets either "started listening" from `subscribe` or what follows it.
        state.withLock { state in
            if let listening { state.listening = listening }
            for subscriber in state.subscribers.values { subscriber.deliver(notice) }
        }
    }

    // MARK: The thread

    private func run() {
        var connection: OpaquePointer?
        var failures = 0
        while !isStopped {
            guard let open = connection else {
                do {
                    connection = try listen()
                    failures = 0
                    broadcast(.everything(.startedListening), listening: true)
                } catch {
                    failures += 1
                    pause(seconds: min(2, 0.05 * Double(1 << min(failures, 6))))
                }
                continue
            }
            deliverPendingNotifications(open)
            guard waitForInput(open), PQconsumeInput(open) == 1 else {
                PQfinish(open)
                connection = nil
                broadcast(.everything(.connectionLost), listening: false)
                continue
            }
            deliverPendingNotifications(open)
        }
        if let connection { PQfinish(connection) }
    }

    /// Opens a connection and LISTENs on the channel.
    private func listen() throws -> OpaquePointer {
        let connection = try PostgresConnection.connect(target)
        guard let result = PQexec(connection, "LISTEN \"\(channel)\"") else {
            PQfinish(connection)
            throw PostgresError(sqlState: nil, message: "LISTEN failed", connectionLost: true)
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            let message = PostgresConnection.message(PQresultErrorMessage(result))
            PQfinish(connection)
            throw PostgresError(sqlState: nil, message: message, connectionLost: true)
        }
        return connection
    }

    /// Waits up to 200 ms for the socket to be readable; false when it is in error.
    private func waitForInput(_ connection: OpaquePointer) -> Bool {
        let socket = PQsocket(connection)
        guard socket >= 0 else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 200)
        if ready < 0 { return errno == EINTR }
        let failed = Int16(POLLERR) | Int16(POLLNVAL)
        return descriptor.revents & failed == 0
    }

    private func deliverPendingNotifications(_ connection: OpaquePointer) {
        while let notification = PQnotifies(connection) {
            let pid = notification.pointee.be_pid
            let payload = notification.pointee.extra.map { String(cString: $0) } ?? ""
            PQfreemem(notification)
            guard !backends.contains(pid) else { continue }
            broadcast(Self.notice(payload))
        }
    }

    /// The notice a payload stands for: `*`, or a JSON array of integer or string keys.
    static func notice(_ payload: String) -> PostgresNotice {
        if payload == PostgresTable.everything { return .everything(.manyEntities) }
        let data = Data(payload.utf8)
        if let numbers = try? JSONDecoder().decode([Int64].self, from: data) {  // else: not integer keys
            return .keys(numbers.map(PostgresKey.integer))
        }
        if let strings = try? JSONDecoder().decode([String].self, from: data) {  // else: unreadable
            return .keys(strings.map(PostgresKey.text))
        }
        return .everything(.unreadableNotification)
    }

    private func pause(seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while !isStopped, Date() < end { Thread.sleep(forTimeInterval: 0.05) }
    }
}
