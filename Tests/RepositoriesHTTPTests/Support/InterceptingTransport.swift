import Foundation
import RepositoriesHTTP
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real transport that runs `before` once, just before the first request `matches`
/// selects leaves: another client's write landing between a read and a write.
final class InterceptingTransport: HTTPTransport {
    private let base = URLSessionTransport()
    private let matches: @Sendable (URLRequest) -> Bool
    private let before: @Sendable () async throws -> Void
    private let fired = Mutex(false)

    init(
        when matches: @escaping @Sendable (URLRequest) -> Bool,
        before: @escaping @Sendable () async throws -> Void
    ) {
        self.matches = matches
        self.before = before
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let fire =
            matches(request)
            && fired.withLock { fired in
                !fired
                    && {
                        fired = true
                        return true
                    }()
            }
        if fire { try await before() }
        return try await base.send(request)
    }
}
