import Foundation
import Repositories

extension HTTPRepository {
    /// Runs `query` on the API as far as ``Configuration/queries`` can write it, and the rest
    /// on the device over what the API sends.
    ///
    /// ```swift
    /// let scores = HTTPRepository<Score>(baseURL: table, configuration: .postgREST(apiKey: key))
    /// let top = try await scores.fetch(
    ///     Query<Score>().where(\.points < 500_000).sorted(by: \.points, .descending).limit(20))
    /// // GET …/scores?points=lt.500000&order=points.desc.nullslast&offset=0&limit=20
    /// ```
    ///
    /// - When every condition is sent and the API sorts, the offset and limit are sent too:
    ///   one request of `limit` rows (several when `limit` exceeds
    ///   ``HTTPQueryConvention/maximumLimit``).
    /// - When part of the query runs on the device and the API sorts, the API's answer is read
    ///   in windows of ``HTTPQueryConvention/maximumLimit`` until the query has its rows.
    /// - A window shorter than asked is read on from, in case the server caps its windows: the
    ///   answer ends at an empty window.
    /// - When the API cannot sort as asked, every row the sent conditions select is read, and
    ///   the device sorts.
    /// - Without ``Configuration/queries``, the collection is read whole (``fetchAll()``).
    ///
    /// Every row must meet the conditions sent and come in the order asked. Windows are
    /// separate requests: a write made while they are read can shift the answer (the rows
    /// that come again are read once) or make a row be missed, as in ``fetchAll()``.
    ///
    /// - Throws: `rejected` for a query that does not validate; `corrupted` naming the row
    ///   when the API answers a row that does not meet a condition sent, answers rows out of
    ///   the order asked, more rows than asked, or a row in two windows (it ignored a
    ///   parameter); else
    ///   `RepositoryError` as the type's documentation lists.
    public func fetch(_ query: Query<Entity>) async throws -> [Entity] {
        try query.validate()
        guard let convention = configuration.queries else { return try query.apply(to: try await fetchAll()) }
        let plan = HTTPQueryPlan(query, convention: convention, apiName: apiName)
        if plan.windowsOnServer {
            return try await read(plan, convention, from: query.offset, wanting: query.limit)
        }
        guard plan.sortsOnServer else {
            let rows = try await read(plan, convention, from: 0, wanting: nil)
            return Self.window(query.stableSorted(rows), of: query)
        }
        let wanted = query.limit.map { query.offset.addingReportingOverflow($0) }.flatMap {
            $0.overflow ? nil : $0.partialValue
        }
        let rows = try await read(plan, convention, from: 0, wanting: nil, stoppingAt: wanted)
        return Self.window(rows, of: query)
    }

    /// Counts what `query` selects: with ``Endpoints/count`` and every condition sent, one
    /// request carrying the conditions (PostgREST's `Prefer: count=exact`, DRF's `count`,
    /// json-server's `X-Total-Count`); otherwise the rows are read as ``fetch(_:)`` reads
    /// them, and counted.
    ///
    /// - Throws: as ``fetch(_:)`` does.
    public func count(_ query: Query<Entity>) async throws -> Int {
        try query.validate()
        guard let convention = configuration.queries else {
            return try query.apply(to: try await fetchAll()).count
        }
        let plan = HTTPQueryPlan(query, convention: convention, apiName: apiName)
        guard !plan.filtersOnDevice, let count = configuration.endpoints.count else {
            var everything = query
            everything.offset = 0
            everything.limit = nil
            return query.finishedCount(matching: try await fetch(everything).count)
        }
        var endpoint = count(resource).addingQueryParameters(plan.conditionItems)
        for (name, value) in convention.headers { endpoint.headers[name] = value }
        let reply = try await exchange(endpoint, operation: "count(_:)")
        try check(reply)
        let matches = try decode(reply, as: "a count", record: "count", configuration.coding.decodeCount)
        return query.finishedCount(matching: matches)
    }

    /// The rows of the API's answer to `plan` from `offset` on that pass the device's part,
    /// `wanting` rows of the answer at most, stopping once `stoppingAt` rows passed.
    ///
    /// A window shorter than asked is not taken for the end: a server may cap its windows
    /// below the convention's (PostgREST's `max-rows`), so the answer ends at an empty window,
    /// or when `wanting` rows were read.
    private func read(
        _ plan: HTTPQueryPlan<Entity>, _ convention: HTTPQueryConvention, from offset: Int, wanting: Int?,
        stoppingAt enough: Int? = nil
    ) async throws -> [Entity] {
        var kept: [Entity] = []
        var seen: Set<ID> = []
        var lastWindow: Set<ID> = []
        var offset = offset
        var remaining = wanting
        var previous: Entity?
        var requests = 0
        let order = plan.orderItems ?? plan.collectionOrderItems
        let largest = max(1, convention.maximumLimit)
        while remaining.map({ $0 > 0 }) ?? true {
            if let enough, kept.count >= enough { break }
            try Task.checkCancellation()
            let size = min(remaining ?? largest, largest)
            let endpoint = queryEndpoint(
                plan.conditionItems + order + convention.window(offset, size), convention)
            requests += 1
            // The read's last request, the empty window, is not a page.
            if requests > configuration.maximumPages + 1 {
                var error = RepositoryError.corrupted(
                    "The query \(plan.description) read \(configuration.maximumPages) windows without reaching its end",
                    location: endpoint.url.absoluteString)
                error.recovery =
                    "Raise Configuration.maximumPages, or check the API's offset and limit parameters"
                throw error
            }
            let reply = try await exchange(endpoint, operation: "fetch(_:)")
            try check(reply)
            let rows = try decode(
                reply, as: "a window of \(Entity.self) values", record: "window \(requests)",
                configuration.coding.decodePage
            ).entities
            if rows.count > size {
                throw answerError(
                    "answered \(rows.count) rows where \(size) were asked for", plan, reply,
                    recovery: "Check that the API reads the convention's window parameters (limit and offset)"
                )
            }
            // A write before the offset while the windows were read shifts the answer: the
            // previous window's last rows come again first, and are read once. A window of
            // nothing but rows read already is an API that did not read the offset.
            let shifted = rows.prefix { lastWindow.contains($0.id) }.count
            if shifted > 0 && shifted == rows.count {
                throw answerError(
                    "answered \(describe(rows[0].id)) and the rest of a window again", plan, reply,
                    recovery: "Check that the API reads the convention's window parameters (limit and offset)"
                )
            }
            lastWindow = Set(rows.map(\.id))
            for row in rows.dropFirst(shifted) {
                if let unmet = plan.unmetSentCondition(row) {
                    throw answerError(
                        "answered \(describe(row.id)), which does not meet \(unmet)", plan, reply,
                        recovery: "Check that the API filters by the parameters sent")
                }
                if plan.sortsOnServer, let before = previous,
                    plan.query.order(before, row) == .orderedDescending
                {
                    throw answerError(
                        "answered \(describe(row.id)) (\(Self.sortValues(of: row, plan.query))) after "
                            + "\(describe(before.id)) (\(Self.sortValues(of: before, plan.query))), out of the order asked",
                        plan, reply,
                        recovery:
                            "Check that the API sorts by the parameters sent, and compares text as the convention says"
                    )
                }
                // A row read in an earlier window, past a shift: the offset was not read.
                guard seen.insert(row.id).inserted else {
                    throw answerError(
                        "answered \(describe(row.id)) in two windows", plan, reply,
                        recovery:
                            "Check that the API reads the convention's window parameters (limit and offset); a write that moved the row while the windows were read does this too, and the query can be run again"
                    )
                }
                previous = row
                if plan.passesOnDevice(row) { kept.append(row) }
            }
            guard !rows.isEmpty else { break }
            let (next, overflow) = offset.addingReportingOverflow(rows.count)
            if overflow { break }
            offset = next
            remaining = remaining.map { $0 - rows.count }
        }
        return kept
    }

    /// The query request carrying `items`, with the convention's headers.
    private func queryEndpoint(_ items: [URLQueryItem], _ convention: HTTPQueryConvention) -> HTTPEndpoint {
        var endpoint = configuration.endpoints.query(resource).addingQueryParameters(items)
        for (name, value) in convention.headers { endpoint.headers[name] = value }
        return endpoint
    }

    /// The key of the declared field `name` in the API's JSON: `name` itself when the coding
    /// converts keys to snake case, or writes them its own way; in lower camel case with
    /// Swift's default keys (`found_at` → `foundAt`).
    func apiName(_ name: String) -> String {
        if case .useDefaultKeys = configuration.coding.makeEncoder().keyEncodingStrategy {
            return DeclaredFields.lowerCamelCase(name)
        }
        return name
    }

    /// A `corrupted` error for an answer that does not match the query sent.
    private func answerError(
        _ what: String, _ plan: HTTPQueryPlan<Entity>, _ reply: HTTPReply, recovery: String
    ) -> RepositoryError {
        var error = RepositoryError.corrupted(
            "The API \(what) (\(reply.method) \(reply.url.absoluteString), for the query \(plan.description))",
            location: reply.url.absoluteString)
        error.recovery =
            recovery
            + ", or set Configuration.queries to a convention it follows (nil runs queries on the device)"
        return error
    }

    /// `price 3.5, name "Ab"`: the values of `entity` the query sorts by.
    private static func sortValues(of entity: Entity, _ query: Query<Entity>) -> String {
        query.sortKeys.compactMap(\.field).map { field in
            let value = field.value(entity)
            return "\(field.name) \(value.parameterText ?? value.description)"
        }.joined(separator: ", ")
    }

    /// `rows` after the query's offset, up to its limit.
    private static func window(_ rows: [Entity], of query: Query<Entity>) -> [Entity] {
        let start = min(query.offset, rows.count)
        let end = query.limit.map { start + min($0, rows.count - start) } ?? rows.count
        return Array(rows[start..<end])
    }
}

extension HTTPEndpoint {
    /// A copy whose URL carries `items` after any it has, each name and value escaped to RFC
    /// 3986's unreserved characters and `,():*` (a `+` is sent as `%2B`, which a server would
    /// otherwise read as a space).
    func addingQueryParameters(_ items: [URLQueryItem]) -> HTTPEndpoint {
        guard !items.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return self
        }
        let allowed = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~,():*")
        func escaped(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        }
        let added = items.map { escaped($0.name) + "=" + escaped($0.value ?? "") }.joined(separator: "&")
        components.percentEncodedQuery = components.percentEncodedQuery.map { $0 + "&" + added } ?? added
        var copy = self
        copy.url = components.url ?? url
        return copy
    }
}
