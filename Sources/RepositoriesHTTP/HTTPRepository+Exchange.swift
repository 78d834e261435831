import Foundation
import Repositories

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPRepository {
    /// Sends `endpoint` with `body` (else the endpoint's own, if any) and returns the reply, whatever its status, after the
    /// ETag bookkeeping: a `304` to a conditional `GET` comes back as the `200` it stands for.
    ///
    /// - Parameters:
    ///   - tagKey: the URL whose entity tag this exchange reads and updates: the endpoint's
    ///     own by default; for a write, the URL the entity is read from, so a save posted to
    ///     the collection never borrows the collection's tag.
    ///   - ifMatch: whether a save may carry `If-Match` (with ``Configuration/ifMatchOnSave``).
    ///   - ifMatchTag: a tag the write must carry in `If-Match`, whatever the configuration
    ///     says (a conditional write the caller asked for).
    ///   - ifNoneMatch: a condition the write must carry in `If-None-Match` (`*`: only if the
    ///     server holds no copy of the target); the request is never sent again without it.
    ///   - idempotencyKey: the key a write carries in ``Configuration/idempotencyKeyHeader``.
    ///   - operation: the repository operation, such as `fetchAll()`, for error messages.
    /// - Throws: a `RepositoryError` when no reply arrived (see
    ///   ``mapTransportError(_:endpoint:operation:callerCancelled:)``), or `CancellationError`.
    func exchange(
        _ endpoint: HTTPEndpoint, body: Data? = nil, tagKey: URL? = nil, ifMatch: Bool = false,
        ifMatchTag: String? = nil, ifNoneMatch: String? = nil, idempotencyKey: String? = nil,
        operation: String
    ) async throws -> HTTPReply {
        // A task cancelled before its request leaves must not send it: once sent, a write may
        // land whatever the caller hears.
        try Task.checkCancellation()
        let tagKey = tagKey ?? endpoint.url
        var request = try await makeRequest(endpoint, body: body ?? endpoint.body)
        if let idempotencyKey, let header = configuration.idempotencyKeyHeader,
            request.value(forHTTPHeaderField: header) == nil
        {
            request.setValue(idempotencyKey, forHTTPHeaderField: header)
        }
        if let ifMatchTag {
            request.setValue(ifMatchTag, forHTTPHeaderField: "If-Match")
        } else if ifMatch && configuration.ifMatchOnSave, let tag = etags.tag(for: tagKey) {
            request.setValue(tag, forHTTPHeaderField: "If-Match")
        }
        if let ifNoneMatch { request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
        let method = endpoint.method.uppercased()
        let cached =
            method == "GET" && configuration.conditionalRequests
            ? etags.cachedResponse(for: endpoint.url) : nil
        if let cached { request.setValue(cached.tag, forHTTPHeaderField: "If-None-Match") }

        var reply = try await send(request, endpoint: endpoint, operation: operation)
        if reply.status == 304 && ifNoneMatch == nil {
            guard let cached else {
                // A 304 to a request that asked nothing conditional: the server's own
                // caching answered; ask again without any condition of ours.
                request.setValue(nil, forHTTPHeaderField: "If-None-Match")
                return try await send(request, endpoint: endpoint, operation: operation)
            }
            reply.status = 200
            reply.body = cached.body
            return reply
        }
        remember(reply, for: tagKey, method: method)
        return reply
    }

    /// Keeps or forgets the tag of `url` after a reply. A failure (5xx, 401…) says nothing
    /// about the resource, so what was kept stays; a `404` or `410` says it is gone.
    private func remember(_ reply: HTTPReply, for url: URL, method: String) {
        if reply.status == 404 || reply.status == 410 { return etags.forget(url) }
        guard (200..<300).contains(reply.status) else { return }
        guard let tag = reply.header("ETag") else { return etags.forget(url) }
        switch method {
        case "GET" where configuration.conditionalRequests: etags.remember(tag, body: reply.body, for: url)
        case "DELETE": etags.forget(url)
        default: etags.remember(tag, body: nil, for: url)
        }
    }

    /// The request for `endpoint`: headers (defaults, the configuration's, the endpoint's),
    /// the token, the body, the timeout, then ``Configuration/prepareRequest``.
    private func makeRequest(_ endpoint: HTTPEndpoint, body: Data?) async throws -> URLRequest {
        var request = URLRequest(url: endpoint.url)
        request.httpMethod = endpoint.method
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.timeoutInterval = configuration.timeout.seconds
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in configuration.headers { request.setValue(value, forHTTPHeaderField: name) }
        for (name, value) in endpoint.headers { request.setValue(value, forHTTPHeaderField: name) }
        let described = "\(endpoint.method) \(endpoint.url.absoluteString)"
        if let tokenProvider = configuration.tokenProvider {
            let token = try await authorizing(described) { try await tokenProvider() }
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        }
        if let prepareRequest = configuration.prepareRequest {
            try await authorizing(described) { try await prepareRequest(&request) }
        }
        return request
    }

    /// Runs a hook that authorizes a request; its failure stops the request.
    private func authorizing<T>(_ request: String, _ hook: () async throws -> T) async throws -> T {
        do {
            return try await hook()
        } catch let error as CancellationError {
            throw error
        } catch let error as RepositoryError {
            throw error
        } catch {
            throw RepositoryError.rejected(
                "Preparing \(request) failed (the token provider or prepareRequest threw), so it was not sent",
                recovery: "Sign in again, or check what the token provider needs", underlying: error)
        }
    }

    /// Sends `request` through the transport, racing ``Configuration/timeout``.
    ///
    /// A read is abandoned when the caller's task is cancelled. A write is not, once it is on
    /// its way: the server may apply it whatever the client does, so a write the caller is
    /// told failed could land afterwards. It runs to its answer, or to the timeout, and the
    /// caller hears what happened.
    private func send(_ request: URLRequest, endpoint: HTTPEndpoint, operation: String) async throws
        -> HTTPReply
    {
        let transport = self.transport
        let timeout = configuration.timeout
        // The request raced against the timeout; named apart from `exchange(…)`, which calls this.
        let roundTrip = { @Sendable () async throws -> (Data, HTTPURLResponse) in
            try await withThrowingTaskGroup(of: (Data, HTTPURLResponse)?.self) { group in
                group.addTask { try await transport.send(request) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let result = first else { throw DeadlinePassed() }
                return result
            }
        }
        let method = endpoint.method.uppercased()
        let isRead = method == "GET" || method == "HEAD"
        do {
            try Task.checkCancellation()
            // A task of its own is not cancelled with the caller's.
            let (body, response) = isRead ? try await roundTrip() : try await Task(operation: roundTrip).value
            return HTTPReply(method: endpoint.method, url: endpoint.url, response: response, body: body)
        } catch {
            // A write's own failure stands even when its caller was cancelled meanwhile: a
            // timeout or a dropped connection may have left it applied, which
            // `CancellationError` would deny.
            throw mapTransportError(
                error, endpoint: endpoint, operation: operation, callerCancelled: isRead && Task.isCancelled)
        }
    }

    /// The error to throw when no reply arrived.
    ///
    /// Cancellation passes through, and so does any failure of a request its caller
    /// abandoned (`callerCancelled`); a passed deadline and `URLError.timedOut` are
    /// `timedOut`; a `RepositoryError` keeps its code; every other failure (a
    /// refused connection, an unknown host, a dropped connection) is `unavailable`.
    func mapTransportError(
        _ error: any Error, endpoint: HTTPEndpoint, operation: String, callerCancelled: Bool
    ) -> any Error {
        let described = "\(endpoint.method) \(endpoint.url.absoluteString)"
        let location = endpoint.url.absoluteString
        if error is CancellationError || callerCancelled { return CancellationError() }
        if var error = error as? RepositoryError {
            if error.location == nil { error.location = location }
            return error
        }
        if error is DeadlinePassed || (error as? URLError)?.code == .timedOut {
            var timedOut = RepositoryError.timedOut(
                after: configuration.timeout, operation: "\(operation)'s request \(described)")
            timedOut.location = location
            if error is URLError { timedOut.underlying = HTTPTransportFailure(error) }
            return timedOut
        }
        let host =
            endpoint.url.host.map { host in endpoint.url.port.map { "\(host):\($0)" } ?? host } ?? location
        let failure = HTTPTransportFailure(error)
        switch failure.code {
        case .cannotConnectToHost?:
            return RepositoryError.unavailable(
                "\(host) refused the connection for \(described)", location: location, underlying: failure
            ).recovering(
                "Check that the server at \(host) is running and listens on that port, then try again")
        case .cannotFindHost?, .dnsLookupFailed?:
            return RepositoryError.unavailable(
                "The host name \(host) in \(described) could not be resolved", location: location,
                underlying: failure
            ).recovering("Check the host name in the base URL and the network connection, then try again")
        case .networkConnectionLost?:
            return RepositoryError.unavailable(
                "The connection to \(host) dropped during \(described)", location: location,
                underlying: failure)
        case .notConnectedToInternet?:
            return RepositoryError.unavailable(
                "There is no network connection for \(described)", location: location, underlying: failure
            ).recovering("Try again once the device is online")
        case .httpTooManyRedirects?:
            var error = RepositoryError.rejected(
                "\(described) was redirected again and again (the client gave up after too many redirects)",
                recovery: HTTPStatusMapping.redirectRecovery(from: endpoint.url, to: nil), underlying: failure
            )
            error.location = location
            return error
        default:
            return RepositoryError.unavailable(
                "\(described) failed before a complete response arrived (\(failure))", location: location,
                underlying: failure)
        }
    }

    /// Throws the error `reply`'s status stands for, if any, with its field errors named as
    /// the entity's properties are (the coding's key strategy read backwards).
    func check(_ reply: HTTPReply, id: String? = nil) throws {
        guard !(200..<300).contains(reply.status) else { return }
        let decoder = configuration.coding.makeDecoder()
        let error = HTTPStatusMapping.error(for: reply, id: id) {
            HTTPFieldErrors.propertyName(of: $0, decoder: decoder)
        }
        if let error { throw error }
    }

    /// Runs a decoding hook; its failure becomes `decodingFailed` naming the URL and quoting
    /// the body.
    func decode<T>(
        _ reply: HTTPReply, as what: String, record: String,
        _ hook: (HTTPReply, JSONDecoder) throws -> T
    ) throws -> T {
        do {
            return try hook(reply, configuration.coding.makeDecoder())
        } catch let error as RepositoryError {
            throw error
        } catch {
            var failure = RepositoryError.decodingFailed(
                record: record, location: reply.url.absoluteString, underlying: error)
            failure.reason =
                "The response to \(reply.method) \(reply.url.absoluteString) could not be decoded as \(what): \(reply.bodyExcerpt())"
            failure.recovery = "Check that the API answers what the entity and Coding expect"
            throw failure
        }
    }

    /// Encodes `entity` as a save's body.
    ///
    /// - Throws: `encodingFailed` naming the entity.
    func encode(_ entity: Entity) throws -> Data {
        do {
            return try configuration.coding.encodeEntity(entity, configuration.coding.makeEncoder())
        } catch {
            throw RepositoryError.encodingFailed(id: describe(entity.id), underlying: error)
        }
    }
}

extension RepositoryError {
    /// A copy whose ``recovery`` is `recovery`.
    func recovering(_ recovery: String) -> RepositoryError {
        var copy = self
        copy.recovery = recovery
        return copy
    }
}

/// The per-request timeout passed before a reply arrived.
private struct DeadlinePassed: Error {}

extension Duration {
    /// The duration in seconds, as `URLRequest.timeoutInterval` wants it.
    fileprivate var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
