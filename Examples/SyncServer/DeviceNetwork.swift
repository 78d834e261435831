import Foundation
import RepositoriesHTTP
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The network between the devices and the server: hands each request to the server (a
/// `SyncEndpointTransport`, in process), and can be switched off, or lose the answer to the
/// next write after the server applied it, as a dropped connection does.
///
/// Shared by both devices; the story flips it and reads what happened on it.
final class DeviceNetwork: HTTPTransport {
    private struct State {
        var isOnline: Bool
        var requests = 0
        var losesNextWriteAnswer = false
        var lost: [String] = []
        var replayed: [String] = []
    }
    private let server: SyncEndpointTransport
    private let state: Mutex<State>

    /// A network to `server`, online unless `online` is `false`.
    init(to server: SyncEndpointTransport, online: Bool) {
        self.server = server
        state = Mutex(State(isOnline: online))
    }

    /// Whether requests reach the server.
    var isOnline: Bool { state.withLock { $0.isOnline } }
    /// The requests that reached the server so far, each resend counted.
    var requests: Int { state.withLock { $0.requests } }
    /// The writes whose answer was lost after the server applied them, as `PUT /notes/2`.
    var lost: [String] { state.withLock { $0.lost } }
    /// The writes the server answered from their key's record (`Idempotent-Replayed: true`).
    var replayed: [String] { state.withLock { $0.replayed } }

    /// Takes the server out of reach: every request fails as with no connection.
    func goOffline() { state.withLock { $0.isOnline = false } }
    /// Brings the server back.
    func goOnline() { state.withLock { $0.isOnline = true } }
    /// Loses the answer to the next write, once the server has applied it.
    func loseNextWriteAnswer() { state.withLock { $0.losesNextWriteAnswer = true } }

    /// Hands `request` to the server, unless the network is off; loses the answer when asked to.
    ///
    /// - Throws: `URLError.notConnectedToInternet` while offline, before the server sees
    ///   anything; `URLError.networkConnectionLost` for a lost answer, after the server
    ///   applied the write.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let online = state.withLock { state in
            if state.isOnline { state.requests += 1 }
            return state.isOnline
        }
        guard online else { throw URLError(.notConnectedToInternet) }
        let (body, response) = try await server.send(request)
        let method = request.httpMethod ?? "GET"
        let name = "\(method) \(request.url?.path ?? "")"
        let lose = state.withLock { state in
            if response.value(forHTTPHeaderField: "Idempotent-Replayed") == "true" {
                state.replayed.append(name)
            }
            guard state.losesNextWriteAnswer, method != "GET" else { return false }
            state.losesNextWriteAnswer = false
            state.lost.append(name)
            return true
        }
        if lose { throw URLError(.networkConnectionLost) }
        return (body, response)
    }
}
