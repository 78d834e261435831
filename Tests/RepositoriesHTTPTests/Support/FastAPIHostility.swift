import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The FastAPI fixture's switches (`PUT /__switches`; `Fixtures/fastapi_app.py` says what
/// each does). Every one is off by default: an honest server.
struct FastAPISwitches: Codable, Sendable {
    /// A task's `due_at` stored truncated to milliseconds and written back at +02:00.
    var normalizeDates = false
    /// Every write of a task sets its `updated_at` to the server's clock.
    var stampUpdatedAt = false
    /// A write whose `Idempotency-Key` was answered before gets that answer again, applied
    /// nothing.
    var honourIdempotencyKeys = false
    /// Which answers a key keeps: `"all"` but a 5xx (a `PUT`'s 404 included), or only
    /// `"applied"` ones (2xx), as a server that forgets a request that changed nothing.
    var keepAnswers = "all"
    /// Tasks whose writes answer 422.
    var refuse: [UUID] = []
    /// The probability that a write answered 2xx loses its answer.
    var loseAnswers = 0.0
    /// The next writes answered 2xx that lose their answer.
    var loseNext = 0
    /// How an answer is lost: `"drop"` (the connection closes after the headers) or `"504"`.
    var lostAnswer = "drop"
    /// The next writes that arrive `lateDelay` seconds late, after the client timed out.
    var answerLate = 0
    /// How late, in seconds.
    var lateDelay = 0.0
    /// Seeds the random loss of answers.
    var seed = 0

    enum CodingKeys: String, CodingKey {
        case normalizeDates = "normalize_dates"
        case stampUpdatedAt = "stamp_updated_at"
        case honourIdempotencyKeys = "honour_idempotency_keys"
        case keepAnswers = "keep_answers"
        case refuse
        case loseAnswers = "lose_answers"
        case loseNext = "lose_next"
        case lostAnswer = "lost_answer"
        case answerLate = "answer_late"
        case lateDelay = "late_delay"
        case seed
    }
}

/// One change the FastAPI fixture applied: a create, a replace, or a delete that removed
/// something, with the request's idempotency key and the body as it was sent.
struct FastAPIApplication: Decodable, Sendable {
    /// The body's fields the tests read.
    struct Body: Decodable, Sendable {
        /// A task's or a note's title; `nil` for a finding.
        var title: String?
        /// A finding's note; `nil` for a task or a note.
        var note: String?
    }

    /// 1, 2, …: the order of application.
    var seq: Int
    /// `"create"`, `"replace"` or `"delete"`.
    var kind: String
    /// `"tasks"`, `"notes"` or `"findings"`.
    var resource: String
    /// The item's ID as the URL names it.
    var id: String
    /// The request's `Idempotency-Key`, if it had one.
    var idempotencyKey: String?
    /// The body sent (a save's), before the server normalised it.
    var sent: Body?

    enum CodingKeys: String, CodingKey {
        case seq, kind, resource, id, sent
        case idempotencyKey = "idempotency_key"
    }
}

extension FixtureServer {
    /// Sets the FastAPI fixture's switches, all at once (those left out are off).
    func setSwitches(_ switches: FastAPISwitches) async throws {
        _ = try await fastAPIControl("PUT", "/__switches", body: try JSONEncoder().encode(switches))
    }

    /// The changes the FastAPI fixture applied after the first `since`, in order.
    func applications(since: Int = 0) async throws -> [FastAPIApplication] {
        try JSONDecoder().decode(
            [FastAPIApplication].self, from: try await fastAPIControl("GET", "/__applications?since=\(since)")
        )
    }

    /// How many answers the FastAPI fixture replayed from an idempotency key (`replayed`) and
    /// lost (`lost`), how many writes it held late (`late`) and how many of those have landed
    /// since (`late_landed`), and how many changes it applied (`applications`).
    func hostilityCounts() async throws -> [String: Int] {
        try JSONDecoder().decode([String: Int].self, from: try await fastAPIControl("GET", "/__stats"))
    }

    private func fastAPIControl(_ method: String, _ path: String, body: Data? = nil) async throws -> Data {
        guard let url = URL(string: root.absoluteString + path) else { throw ServerError("bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.timeoutInterval = 30
        let (data, response) = try await controlExchange(request, on: URLSession.shared)
        let status = response.statusCode
        guard (200..<300).contains(status) else {
            throw ServerError(
                "\(method) \(path) answered \(status): \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }
}
