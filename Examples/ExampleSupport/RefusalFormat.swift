import Foundation

/// How a server framework answers a write whose fields break its rules: the status, and the
/// shape of the body that lists the messages by field. ``SimulatedAPI`` answers in one of
/// these, so `HTTPRepository` reads the refusal as it reads that framework's.
public enum RefusalFormat: Sendable, Equatable {
    /// FastAPI's: `422 Unprocessable Content` and
    /// `{"detail": [{"type": "greater_than", "loc": ["body", "price"], "msg": "…", "input": 0}]}`.
    case fastAPI
    /// Django REST Framework's: `400 Bad Request` and `{"quantity": ["Ensure this value is …"]}`.
    case djangoREST

    /// The framework's name, for an example's output: `FastAPI`.
    public var framework: String {
        switch self {
        case .fastAPI: "FastAPI"
        case .djangoREST: "Django REST Framework"
        }
    }

    /// The status the framework answers a refusal of fields with.
    public var status: Int {
        switch self {
        case .fastAPI: 422
        case .djangoREST: 400
        }
    }

    /// The body refusing `broken`, the rules an entity sent as `object` (the request's JSON
    /// object) does not pass; FastAPI's echoes each field's value as its `input`.
    ///
    /// - Throws: the encoder's error when a value of `object` cannot be written back as JSON.
    func body<Entity>(refusing broken: [FieldRule<Entity>], sent object: [String: Any]) throws -> Data {
        let document: Any
        switch self {
        case .fastAPI:
            document = [
                "detail": broken.map { rule in
                    [
                        "type": rule.type, "loc": ["body", rule.field], "msg": rule.message,
                        "input": object[rule.field] ?? NSNull(),
                    ] as [String: Any]
                }
            ]
        case .djangoREST:
            document = Dictionary(broken.map { ($0.field, [$0.message]) }, uniquingKeysWith: +)
        }
        return try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
    }
}
