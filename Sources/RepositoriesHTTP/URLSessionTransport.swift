import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``HTTPTransport``: a `URLSession` data task per request, cancelled when the
/// calling task is.
///
/// The default session is shared by every `URLSessionTransport()` and has no URL cache
/// (``HTTPRepository`` does its own conditional requests and must see each `304`), no
/// cookies, credentials only as each request carries them, and follows no redirect: the
/// `3xx` comes back as the answer, which the repository reports as `rejected` with what to
/// change. (Following one can turn a `PUT` or `POST` into a `GET` that "succeeds" without
/// writing, and FoundationNetworking on Linux loops on some, such as Django's trailing-slash
/// redirects.)
public struct URLSessionTransport: HTTPTransport {
    /// The session the requests run on.
    public let session: URLSession

    /// A transport over `session`; by default a shared session without a URL cache.
    ///
    /// A session of your own should not cache responses either
    /// (`configuration.urlCache = nil`), or a `304` may be answered from its cache.
    public init(session: URLSession = URLSessionTransport.sharedSession) {
        self.session = session
    }

    /// The session every `URLSessionTransport()` shares: ephemeral, no URL cache, no cookies,
    /// no redirects followed.
    public static let sharedSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        return URLSession(configuration: configuration, delegate: RedirectRefusal(), delegateQueue: nil)
    }()

    /// Runs `request` as a data task; cancelling the calling task cancels the data task.
    ///
    /// A cancelled call returns at once, without waiting for the session to report the
    /// cancelled task: FoundationNetworking has been seen never to complete a task whose
    /// connection the server closed, and a caller racing a timeout must not wait on it.
    ///
    /// - Throws: the session's `URLError` when no response arrived, or `CancellationError`
    ///   when the calling task was cancelled.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let handle = DataTaskHandle()
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    handle.start(
                        session.dataTask(with: request) { data, response, error in
                            if let error {
                                handle.finish(.failure(error))
                            } else if let response = response as? HTTPURLResponse {
                                handle.finish(.success((data ?? Data(), response)))
                            } else {
                                handle.finish(.failure(URLError(.badServerResponse)))
                            }
                        }, answering: continuation)
                }
            } onCancel: {
                handle.cancel()
            }
        } catch let error as URLError where error.code == .cancelled && Task.isCancelled {
            throw CancellationError()
        }
    }
}

/// Answers every redirect with "do not follow", so the `3xx` itself is the task's response.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// The data task of one request, which a cancellation may reach before the task exists, and
/// the caller waiting for it, answered once: by the task's completion or by the cancellation,
/// whichever comes first.
private final class DataTaskHandle: Sendable {
    private struct State {
        var task: URLSessionDataTask?
        var caller: CheckedContinuation<(Data, HTTPURLResponse), any Error>?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Starts `task` for `caller`, or cancels both at once when the call was cancelled already.
    func start(
        _ task: URLSessionDataTask, answering caller: CheckedContinuation<(Data, HTTPURLResponse), any Error>
    ) {
        let cancelled = state.withLock { state in
            state.task = task
            state.caller = caller
            return state.cancelled
        }
        task.resume()
        if cancelled { cancel() }
    }

    /// Answers the caller, unless it was answered already.
    func finish(_ result: Result<(Data, HTTPURLResponse), any Error>) {
        let caller = state.withLock { state in
            defer { state.caller = nil }
            return state.caller
        }
        caller?.resume(with: result)
    }

    /// Cancels the task, now or as soon as it starts, and answers the caller with
    /// `CancellationError` without waiting for the session.
    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
        if task != nil { finish(.failure(CancellationError())) }
    }
}
