import Foundation
import Repositories
import RepositoriesHTTP
import Testing

/// The field errors read from a refusal's body, from tables of bodies real servers send:
/// RFC 9457 problem details, FastAPI's 422, Django REST Framework's 400, Rails' 422, and
/// shapes no rule knows, which give none and never fail.
@Suite struct HTTPFieldErrorsTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var contentType: String? = "application/json"
        var body: String
        var expected: [String: [String]]
        var testDescription: String { name }
    }

    static let knownShapes: [Row] = [
        Row(
            name: "RFC 9457 errors extension with JSON pointers (the RFC's own example)",
            contentType: "application/problem+json",
            body: """
                {"type": "https://example.net/validation-error",
                 "title": "Your request is not valid.",
                 "errors": [
                   {"detail": "must be a positive integer", "pointer": "#/age"},
                   {"detail": "must be 'green', 'red' or 'blue'", "pointer": "#/profile/color"}]}
                """,
            expected: [
                "age": ["must be a positive integer"], "profile.color": ["must be 'green', 'red' or 'blue'"],
            ]
        ),
        Row(
            name: "RFC 7807 invalid-params extension",
            contentType: "application/problem+json",
            body: """
                {"type": "https://example.net/validation-error",
                 "title": "Your request parameters didn't validate.",
                 "invalid-params": [
                   {"name": "age", "reason": "must be a positive integer"},
                   {"name": "color", "reason": "must be 'green', 'red' or 'blue'"}]}
                """,
            expected: ["age": ["must be a positive integer"], "color": ["must be 'green', 'red' or 'blue'"]]),
        Row(
            name: "ASP.NET Core ValidationProblemDetails: errors as an object of lists",
            contentType: "application/problem+json; charset=utf-8",
            body: """
                {"type": "https://tools.ietf.org/html/rfc9110#section-15.5.1",
                 "title": "One or more validation errors occurred.", "status": 400,
                 "errors": {"title": ["The title field is required."], "price": ["Must be above 0.", "Must be a number."]},
                 "traceId": "00-84c1fd4063c38d9f3900d06e56542d48-85d1d4-00"}
                """,
            expected: [
                "title": ["The title field is required."],
                "price": ["Must be above 0.", "Must be a number."],
            ]),
        Row(
            name: "problem details with only a detail, for the whole request",
            contentType: "application/problem+json",
            body: """
                {"type": "about:blank", "title": "Forbidden", "status": 403,
                 "detail": "Only the owner may edit this note.", "instance": "/notes/7"}
                """,
            expected: ["": ["Only the owner may edit this note."]]),
        Row(
            name: "problem details sent as plain JSON (its members say what it is)",
            body: """
                {"type": "https://example.net/out-of-stock", "title": "Out of stock", "status": 400,
                 "detail": "Only 2 left", "errors": [{"detail": "at most 2", "pointer": "/quantity"}]}
                """,
            expected: ["": ["Only 2 left"], "quantity": ["at most 2"]]),
        Row(
            name: "FastAPI 422 (pydantic 2): the leading body is dropped",
            body: """
                {"detail": [
                  {"type": "missing", "loc": ["body", "title"], "msg": "Field required", "input": {"rank": "high"}},
                  {"type": "int_parsing", "loc": ["body", "rank"],
                   "msg": "Input should be a valid integer, unable to parse string as an integer", "input": "high"}]}
                """,
            expected: [
                "title": ["Field required"],
                "rank": ["Input should be a valid integer, unable to parse string as an integer"],
            ]),
        Row(
            name: "FastAPI 422 whose loc names no field, and one nested in a list",
            body: """
                {"detail": [
                  {"type": "model_attributes_type", "loc": ["body"],
                   "msg": "Input should be a valid dictionary or object to extract fields from", "input": "x"},
                  {"type": "string_type", "loc": ["body", "tags", 1], "msg": "Input should be a valid string"}]}
                """,
            expected: [
                "": ["Input should be a valid dictionary or object to extract fields from"],
                "tags.1": ["Input should be a valid string"],
            ]),
        Row(
            name: "Django REST Framework 400: a list per field, non_field_errors under the empty key",
            body: """
                {"title": ["This field may not be blank."], "rank": ["A valid integer is required."],
                 "non_field_errors": ["The fields owner, title must make a unique set."]}
                """,
            expected: [
                "title": ["This field may not be blank."], "rank": ["A valid integer is required."],
                "": ["The fields owner, title must make a unique set."],
            ]),
        Row(
            name: "Django REST Framework 400 of a nested serializer",
            body:
                #"{"address": {"city": ["This field is required."]}, "name": ["Ensure this field has no more than 20 characters."]}"#,
            expected: [
                "address.city": ["This field is required."],
                "name": ["Ensure this field has no more than 20 characters."],
            ]),
        Row(
            name: "Django REST Framework 400 of a list serializer: an object per item",
            body: #"[{}, {"title": ["This field may not be blank."]}]"#,
            expected: ["1.title": ["This field may not be blank."]]),
        Row(
            name: "a plain detail: DRF's and FastAPI's HTTPException",
            body: #"{"detail": "You do not have permission to perform this action."}"#,
            expected: ["": ["You do not have permission to perform this action."]]),
        Row(
            name: "Rails 422: errors as an object of lists",
            body: #"{"errors": {"title": ["can't be blank"], "due_on": ["must be in the future"]}}"#,
            expected: ["title": ["can't be blank"], "due_on": ["must be in the future"]]),
        Row(
            name: "Rails 422: full messages, for no field in particular",
            body: #"{"errors": ["Title can't be blank"]}"#,
            expected: ["": ["Title can't be blank"]]),
    ]

    @Test(arguments: knownShapes)
    func knownShapesGiveTheirFieldErrors(_ row: Row) {
        let parsed = HTTPFieldErrors.parse(Data(row.body.utf8), contentType: row.contentType)
        #expect(parsed == row.expected)
    }

    static let unknownShapes: [Row] = [
        Row(name: "an empty body", body: "", expected: [:]),
        Row(
            name: "an HTML error page", contentType: "text/html",
            body: "<!doctype html><html><body><h1>400 Bad Request</h1></body></html>", expected: [:]),
        Row(name: "JSON cut short", body: #"{"title": ["This field"#, expected: [:]),
        Row(
            name: "OAuth's error object",
            body: #"{"error": "invalid_token", "error_description": "expired"}"#,
            expected: [:]),
        Row(
            name: "an object whose values are not messages", body: #"{"title": ["ok"], "code": 42}"#,
            expected: [:]),
        Row(name: "a number", body: "42", expected: [:]),
        Row(name: "an array of numbers", body: "[1, 2, 3]", expected: [:]),
        Row(name: "a FastAPI detail list of other things", body: #"{"detail": [1, "two"]}"#, expected: [:]),
    ]

    @Test(arguments: unknownShapes)
    func unknownShapesGiveNoFieldErrors(_ row: Row) {
        #expect(HTTPFieldErrors.parse(Data(row.body.utf8), contentType: row.contentType) == row.expected)
    }

    @Test func fieldNamesAreMappedAtEveryLevel() {
        let body =
            #"{"detail": [{"loc": ["body", "due_at"], "msg": "Input should be a valid datetime"}, {"loc": ["body", "home_address", "zip_code"], "msg": "Field required"}]}"#
        let parsed = HTTPFieldErrors.parse(Data(body.utf8), contentType: "application/json") {
            $0.replacingOccurrences(of: "_a", with: "A").replacingOccurrences(of: "_c", with: "C")
        }
        #expect(
            parsed == [
                "dueAt": ["Input should be a valid datetime"], "homeAddress.zipCode": ["Field required"],
            ])
    }
}
