import Foundation

/// Reads the messages by field out of a refusal's body, for `RepositoryError.fieldErrors`.
///
/// The shapes read, tried in this order on a JSON body:
///
/// | shape | example | fields |
/// |---|---|---|
/// | FastAPI's 422 | `{"detail": [{"loc": ["body", "price"], "msg": "…"}]}` | `loc` without its leading `"body"`; a `loc` naming no field: `""` |
/// | RFC 9457 problem details (the content type says so, or a `type` or `title` string) | `{"title": …, "detail": "…", "errors": …, "invalid-params": […]}` | `detail` under `""`; the extensions as below |
/// | an `errors` member (RFC 9457's, Rails', Laravel's) | `{"errors": {"price": ["…"]}}`, `{"errors": [{"detail": "…", "pointer": "#/price"}]}` | the object's keys, or each item's JSON pointer (`pointer`, `source.pointer`) or name (`field`, `name`, `param`); a message alone: `""` |
/// | a plain detail | `{"detail": "…"}` | `""` |
/// | Django REST Framework's 400 (and Rails' bare errors object) | `{"price": ["…"], "non_field_errors": ["…"]}` | the keys, nested objects joined with `.`, a list serializer's items by index; `non_field_errors` and `__all__`: `""` |
///
/// Any other shape gives no field errors; reading never fails.
package enum HTTPFieldErrors {
    /// The largest body read; a validation error is far smaller, and a larger body is an
    /// error page.
    static let largestBody = 1 << 20

    /// The messages by field in `body`, each field's path named by `fieldName` one component
    /// at a time (the coding's key strategy, so `due_at` becomes `dueAt`) and joined with `.`.
    ///
    /// - Parameters:
    ///   - body: the body of the answer.
    ///   - contentType: the answer's `Content-Type`, when it has one.
    ///   - fieldName: the Swift property name of a key the server sent.
    /// - Returns: the messages by field, `""` for those that name none; empty for a body of a
    ///   shape no rule reads.
    package static func parse(
        _ body: Data, contentType: String?, fieldName: (String) -> String = { $0 }
    ) -> [String: [String]] {
        guard !body.isEmpty, body.count <= largestBody,
            let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        else {
            // Not JSON (an HTML page, a cut body): no field errors, and the body is kept.
            return [:]
        }
        let isProblem = contentType?.lowercased().contains("problem+json") ?? false
        return withoutActuallyEscaping(fieldName) { fieldName in
            var reader = Reader(fieldName: fieldName)
            guard reader.readDocument(json, isProblem: isProblem) else { return [:] }
            return reader.fields
        }
    }

    /// The Swift property name `decoder` reads the key `key` into: `dueAt` for `due_at` under
    /// `.convertFromSnakeCase`, whatever a `.custom` strategy makes of it, `key` itself by
    /// default.
    static func propertyName(of key: String, decoder: JSONDecoder) -> String {
        // A one-key object read through the decoder's own key strategy. Should it fail, the
        // server's name is still the best name there is; nothing is lost but the mapping.
        guard let object = try? JSONSerialization.data(withJSONObject: [key: 0]),
            let decoded = try? decoder.decode(DecodedKey.self, from: object), let name = decoded.name
        else { return key }
        return name
    }

    /// The first key of an object, as the decoder's key strategy names it.
    private struct DecodedKey: Decodable {
        var name: String?

        init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: NamedCodingKey.self).allKeys.first?.stringValue
        }
    }

    /// Collects messages while it walks one body; each `read` answers whether its part had
    /// the shape it reads.
    private struct Reader {
        let fieldName: (String) -> String
        var fields: [String: [String]] = [:]

        mutating func add(_ messages: [String], at path: [String]) {
            guard !messages.isEmpty else { return }
            let key = path.map(fieldName).joined(separator: ".")
            fields[key, default: []] += messages
        }

        mutating func readDocument(_ json: Any, isProblem: Bool) -> Bool {
            if let items = json as? [Any] { return readList(items, at: []) }
            guard let object = json as? [String: Any] else { return false }
            if let detail = object["detail"] as? [Any], !detail.isEmpty {
                return readFastAPI(detail)
            }
            if isProblem || object["type"] is String || object["title"] is String {
                return readProblem(object)
            }
            if object["errors"] != nil {
                if let detail = object["detail"] as? String { add([detail], at: []) }
                return readErrorsMember(object["errors"])
            }
            if let detail = object["detail"] as? String {
                add([detail], at: [])
                return true
            }
            return readObject(object, at: [], singleMessages: false)
        }

        /// FastAPI's (pydantic's) list of `{"loc": [...], "msg": "..."}`.
        mutating func readFastAPI(_ items: [Any]) -> Bool {
            for item in items {
                guard let item = item as? [String: Any], let message = item["msg"] as? String,
                    let location = item["loc"] as? [Any]
                else { return false }
                var path = location.map(Self.component)
                if path.first == "body" { path.removeFirst() }
                add([message], at: path)
            }
            return true
        }

        /// RFC 9457 problem details: `detail` for the whole request, `errors` and
        /// `invalid-params` by field; any other member is the problem's own.
        mutating func readProblem(_ object: [String: Any]) -> Bool {
            if let detail = object["detail"] as? String { add([detail], at: []) }
            if let errors = object["errors"], !readErrorsMember(errors) { return false }
            if let parameters = object["invalid-params"] {
                guard let parameters = parameters as? [Any] else { return false }
                for parameter in parameters {
                    guard let parameter = parameter as? [String: Any],
                        let name = parameter["name"] as? String,
                        let reason = parameter["reason"] as? String
                    else { return false }
                    add([reason], at: Self.path(named: name))
                }
            }
            return true
        }

        /// An `errors` member: an object of messages by field, a list of messages, or a list
        /// of objects each with a message and where it points.
        mutating func readErrorsMember(_ errors: Any?) -> Bool {
            if let object = errors as? [String: Any] {
                return readObject(object, at: [], singleMessages: true)
            }
            guard let items = errors as? [Any] else { return false }
            for item in items {
                if let message = item as? String {
                    add([message], at: [])
                    continue
                }
                guard let item = item as? [String: Any],
                    let message = ["detail", "message", "msg", "reason", "title"].lazy
                        .compactMap({ item[$0] as? String }).first
                else { return false }
                add([message], at: Self.path(of: item))
            }
            return true
        }

        /// Django REST Framework's object: each value a list of messages, or a nested object
        /// of the same; `non_field_errors` and `__all__` name no field. With
        /// `singleMessages` (inside an `errors` member), a value may be one message too; a
        /// bare object of strings is something else (`{"error": "invalid_token"}`).
        mutating func readObject(_ object: [String: Any], at path: [String], singleMessages: Bool) -> Bool {
            guard !object.isEmpty || !path.isEmpty else { return false }
            for (key, value) in object {
                let here = ["non_field_errors", "__all__"].contains(key) ? path : path + [key]
                if let message = value as? String, singleMessages {
                    add([message], at: here)
                } else if let nested = value as? [String: Any] {
                    guard readObject(nested, at: here, singleMessages: singleMessages) else { return false }
                } else if let items = value as? [Any] {
                    guard readList(items, at: here) else { return false }
                } else {
                    return false
                }
            }
            return true
        }

        /// A list of messages, or of objects by index (a list serializer's items).
        mutating func readList(_ items: [Any], at path: [String]) -> Bool {
            guard !items.isEmpty else { return !path.isEmpty }
            if let messages = items as? [String] {
                add(messages, at: path)
                return true
            }
            for (index, item) in items.enumerated() {
                guard let object = item as? [String: Any] else { return false }
                guard readObject(object, at: path + [String(index)], singleMessages: false) else {
                    return false
                }
            }
            return true
        }

        /// Where an item of an `errors` list points: a JSON pointer, or a field's name.
        static func path(of item: [String: Any]) -> [String] {
            let source = item["source"] as? [String: Any]
            if let pointer = (item["pointer"] as? String) ?? (source?["pointer"] as? String) {
                return path(pointer: pointer)
            }
            for key in ["field", "name", "param", "parameter"] {
                if let name = item[key] as? String { return path(named: name) }
            }
            return []
        }

        /// A JSON pointer's tokens (`#/profile/color`, `/data/attributes/price`), unescaped.
        static func path(pointer: String) -> [String] {
            var tokens = pointer.drop { $0 == "#" }.split(separator: "/", omittingEmptySubsequences: false)
                .dropFirst()
                .map {
                    $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
                }
            // JSON:API points into its document: the entity's fields are its attributes.
            if tokens.starts(with: ["data", "attributes"]) { tokens.removeFirst(2) }
            return tokens.filter { !$0.isEmpty }
        }

        /// A field's name as a path: `address.city` is two components, `$.` of a JSON path
        /// dropped.
        static func path(named name: String) -> [String] {
            var name = Substring(name)
            if name.hasPrefix("$.") { name = name.dropFirst(2) }
            return name.split(separator: ".").map(String.init)
        }

        /// One component of a FastAPI `loc`: a key, or a list index.
        static func component(_ value: Any) -> String {
            if let key = value as? String { return key }
            if let index = value as? Int { return String(index) }
            return "\(value)"
        }
    }
}
