import Foundation

/// The one error type this package throws.
///
/// Every failure a repository reports is a `RepositoryError` whose ``code`` tells the
/// category apart, whose ``description`` reads like a sentence a user can act on, and whose
/// ``underlying`` error keeps what the layer below said. The only exception is
/// `CancellationError`, which passes through untouched so that structured concurrency
/// keeps working.
///
/// Match on the code:
///
/// ```swift
/// do {
///     let product = try await products.require(id: 42)
/// } catch let error as RepositoryError where error.code == .notFound {
///     showEmptyState()
/// } catch {
///     show(error.localizedDescription)
/// }
/// ```
public struct RepositoryError: Error, Sendable, CustomStringConvertible {
    /// The category of a failure.
    ///
    /// A struct with a static member per code rather than an enum, so that a later version
    /// can add a code without breaking a `switch` in an app: match with `==`, or `switch`
    /// with a `default:` (`case .notFound:` matches by equality).
    ///
    /// ```swift
    /// switch error.code {
    /// case .unavailable, .timedOut: showOfflineBanner()
    /// case .rejected: showFieldErrors(error.fieldErrors)
    /// default: show(error.description)
    /// }
    /// ```
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The codes this version knows; the struct around it keeps the set open.
        private enum Base: String, Sendable, Hashable, CaseIterable {
            case notFound, unavailable, timedOut, circuitOpen, rejected, conflict, locked, corrupted
            case encodingFailed, decodingFailed, closed, partiallyApplied, writtenByNewerVersion,
                cursorExpired, heldBack
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The code whose ``rawValue`` is `rawValue`, or `nil` when this version of the
        /// package knows no such code (one stored by a later version, say).
        public init?(rawValue: String) {
            guard let base = Base(rawValue: rawValue) else { return nil }
            self.base = base
        }

        /// The code's name, as written in Swift, such as `"notFound"`: stable, for storing a
        /// code and reading it back with ``init(rawValue:)``.
        public var rawValue: String { base.rawValue }

        /// The code's name, as written in Swift.
        public var description: String { rawValue }

        /// Every code this version of the package knows, in the order they are declared.
        /// A later version may add more.
        public static var all: [Code] { Base.allCases.map(Code.init) }

        /// No entity is stored under the requested ID.
        public static let notFound = Code(.notFound)
        /// The data source cannot be reached: the network is down, the server answered 5xx.
        public static let unavailable = Code(.unavailable)
        /// The operation did not finish within its time limit.
        public static let timedOut = Code(.timedOut)
        /// A circuit breaker is open and refused the call without trying it.
        public static let circuitOpen = Code(.circuitOpen)
        /// The request was refused as invalid or not allowed: a 4xx answer, a read-only
        /// repository, a query with a negative offset. An HTTP refusal keeps its
        /// ``RepositoryError/httpStatus``, ``RepositoryError/responseBody`` and
        /// ``RepositoryError/fieldErrors``.
        public static let rejected = Code(.rejected)
        /// The write conflicts with another change (HTTP 409/412, a failed precondition).
        public static let conflict = Code(.conflict)
        /// Another process or connection holds the store.
        public static let locked = Code(.locked)
        /// The stored data is damaged; ``RepositoryError/location`` says where.
        public static let corrupted = Code(.corrupted)
        /// An entity could not be encoded; nothing was written.
        public static let encodingFailed = Code(.encodingFailed)
        /// A stored record could not be decoded; ``RepositoryError/record`` names it.
        public static let decodingFailed = Code(.decodingFailed)
        /// The repository was closed and can no longer be used.
        public static let closed = Code(.closed)
        /// A write reached the primary store (the remote, the source) but a second store
        /// beside it (a local mirror, a cache) could not take it. Nothing is lost: the
        /// primary has the write. ``RepositoryError/underlying`` is the second store's error;
        /// the reason says whether its old copy was removed. Writing again is safe.
        public static let partiallyApplied = Code(.partiallyApplied)
        /// The stored data was written by a newer version of the app's entity than this app
        /// knows (see ``Migrations``); nothing was changed, so updating the app reads it.
        public static let writtenByNewerVersion = Code(.writtenByNewerVersion)
        /// A change feed cannot answer from the cursor given (``ChangeFeedRepository``): it is
        /// older than the deletions the store still remembers, or was issued by another store
        /// (one rebuilt, restored, or a different server). Read the whole collection again and
        /// take a new cursor; an offline-first sync does so by itself.
        public static let cursorExpired = Code(.cursorExpired)
        /// A pending change of a ``SyncGroup`` member was not sent because it depends on an
        /// earlier change (``SyncDependency``) the remote has not confirmed: one it refused, one
        /// the sync could not confirm (its conflict not settled within the sync), or one of an
        /// entity type the group has no member of in this process. The reason names that
        /// change; the held change goes once it is confirmed, retried
        /// (``OfflineFirstRepository/retry(id:)``) or discarded. Nothing to do to this change
        /// itself.
        public static let heldBack = Code(.heldBack)
    }

    /// The category of this failure.
    public var code: Code
    /// What happened, as one sentence.
    public var reason: String
    /// What the user can do about it, when something can be done.
    public var recovery: String?
    /// The ID of the entity concerned, described, when one is.
    public var id: String?
    /// The record concerned (an ID, an index or a key), when one is.
    public var record: String?
    /// The file, URL or table concerned, when one is.
    public var location: String?
    /// The byte offset in ``location`` where the problem was found, when known.
    public var offset: Int?
    /// How long the source asked callers to wait before trying again (HTTP Retry-After).
    public var retryAfter: Duration?
    /// The error reported by the layer below, kept as it was.
    public var underlying: (any Error)?
    /// The status code of the HTTP answer this error stands for, such as 422; `nil` when no
    /// server answered (the network failed) or the error is not from HTTP.
    public var httpStatus: Int?
    /// The body of the HTTP answer this error stands for: its first 64 KiB, so that a huge
    /// error page does not stay in memory; `nil` when there was no answer.
    public var responseBody: Data?
    /// The server's messages by field, for a form to show beside each field: keyed by the
    /// entity's Swift property name (a nested one as `address.city`, an item of a list by its
    /// index, `items.2.price`), with the messages for no field in particular under `""`.
    /// Empty when the answer named none, or had a shape no rule reads.
    ///
    /// `HTTPRepository` reads RFC 9457 problem details (`detail`, and the `errors` and
    /// `invalid-params` extensions), FastAPI's `422` (`{"detail": [{"loc": …, "msg": …}]}`),
    /// Django REST Framework's `400` (`{"field": ["message"], "non_field_errors": […]}`),
    /// Rails' `{"errors": {…}}` and a plain `{"detail": "…"}`.
    public var fieldErrors: [String: [String]]

    /// Creates an error from its parts; prefer the static factories such as
    /// ``notFound(id:)``, which fill in a helpful reason.
    public init(
        _ code: Code,
        reason: String,
        recovery: String? = nil,
        id: String? = nil,
        record: String? = nil,
        location: String? = nil,
        offset: Int? = nil,
        retryAfter: Duration? = nil,
        underlying: (any Error)? = nil,
        httpStatus: Int? = nil,
        responseBody: Data? = nil,
        fieldErrors: [String: [String]] = [:]
    ) {
        self.code = code
        self.reason = reason
        self.recovery = recovery
        self.id = id
        self.record = record
        self.location = location
        self.offset = offset
        self.retryAfter = retryAfter
        self.underlying = underlying
        self.httpStatus = httpStatus
        self.responseBody = responseBody
        self.fieldErrors = fieldErrors
    }

    /// A sentence describing the failure, where it happened, and what to do.
    public var description: String {
        var text = "\(code): \(reason)"
        var context: [String] = []
        if let id { context.append("ID \(id)") }
        if let record { context.append("record \(record)") }
        if let location { context.append("at \(location)") }
        if let offset { context.append("offset \(offset)") }
        if let retryAfter { context.append("retry after \(retryAfter)") }
        if let httpStatus { context.append("HTTP \(httpStatus)") }
        if !context.isEmpty { text += " (" + context.joined(separator: ", ") + ")" }
        if !fieldErrors.isEmpty { Self.append("Field errors: " + Self.summary(of: fieldErrors), to: &text) }
        if let underlying { Self.append("Cause: \(underlying)", to: &text) }
        if let recovery { Self.append(recovery, to: &text) }
        return text
    }

    /// Appends `sentence` to `text` as a sentence of its own: after a full stop, unless the
    /// text ends one already (a cause's message often does), so the description never reads "..".
    private static func append(_ sentence: String, to text: inout String) {
        let ended = text.last.map { ".?!".contains($0) } ?? true
        text += (ended ? " " : ". ") + sentence
    }

    /// `fieldErrors` in a few words: the messages for no field first, then each field's, at
    /// most five fields.
    private static func summary(of fieldErrors: [String: [String]]) -> String {
        let shown = 5
        let parts = fieldErrors.sorted { $0.key < $1.key }.map { field, messages in
            let said = messages.joined(separator: " / ")
            return field.isEmpty ? said : "\(field): \(said)"
        }
        let more = parts.count > shown ? "; and \(parts.count - shown) more" : ""
        return parts.prefix(shown).joined(separator: "; ") + more
    }
}

extension RepositoryError {
    /// No entity is stored under `id`.
    public static func notFound(id: some Hashable) -> RepositoryError {
        RepositoryError(
            .notFound, reason: "No entity is stored under this ID",
            recovery: "Check the ID, or use fetch(id:), which returns nil for an absent entity",
            id: String(describing: id))
    }

    /// The source cannot be reached.
    public static func unavailable(
        _ reason: String, location: String? = nil, retryAfter: Duration? = nil, underlying: (any Error)? = nil
    ) -> RepositoryError {
        RepositoryError(
            .unavailable, reason: reason, recovery: "Try again later; the data source may be offline",
            location: location, retryAfter: retryAfter, underlying: underlying)
    }

    /// The operation ran past `limit`.
    public static func timedOut(after limit: Duration, operation: String) -> RepositoryError {
        RepositoryError(
            .timedOut, reason: "\(operation) did not finish within \(limit)",
            recovery: "Raise the time limit, or check why the source is slow")
    }

    /// A circuit breaker refused the call; it will let a trial call through after `retryAfter`.
    public static func circuitOpen(retryAfter: Duration?) -> RepositoryError {
        RepositoryError(
            .circuitOpen, reason: "The circuit is open after repeated failures, so the call was not tried",
            recovery: "Wait for the break to end, or serve cached data meanwhile", retryAfter: retryAfter)
    }

    /// The request was refused as invalid or not allowed.
    public static func rejected(_ reason: String, recovery: String? = nil, underlying: (any Error)? = nil)
        -> RepositoryError
    {
        RepositoryError(.rejected, reason: reason, recovery: recovery, underlying: underlying)
    }

    /// The write conflicts with another change.
    public static func conflict(_ reason: String, id: String? = nil, underlying: (any Error)? = nil)
        -> RepositoryError
    {
        RepositoryError(
            .conflict, reason: reason, recovery: "Fetch the current version, merge, and save again", id: id,
            underlying: underlying)
    }

    /// Another process or connection holds the store at `location`.
    public static func locked(location: String, underlying: (any Error)? = nil) -> RepositoryError {
        RepositoryError(
            .locked, reason: "Another process or connection holds the store",
            recovery: "Close the other user of the store, or open it with a wait", location: location,
            underlying: underlying)
    }

    /// The data at `location` is damaged at `offset`.
    public static func corrupted(
        _ reason: String, location: String, offset: Int? = nil, underlying: (any Error)? = nil
    ) -> RepositoryError {
        RepositoryError(
            .corrupted, reason: reason,
            recovery:
                "The file was left as it was; restore it from a backup or move it aside to start afresh",
            location: location, offset: offset, underlying: underlying)
    }

    /// The entity with `id` could not be encoded; nothing was written.
    public static func encodingFailed(id: String?, underlying: any Error) -> RepositoryError {
        RepositoryError(
            .encodingFailed, reason: "The entity could not be encoded, so nothing was written",
            recovery: "Fix the value that cannot be encoded (for example a non-finite Double)", id: id,
            underlying: underlying)
    }

    /// The stored `record` could not be decoded.
    ///
    /// - Parameters:
    ///   - record: names the record (an ID, an index or a key).
    ///   - location: the file, key or table holding it.
    ///   - underlying: what the decoder threw.
    ///   - recovery: what to do; by default, migrate the data or make new fields optional.
    public static func decodingFailed(
        record: String, location: String? = nil, underlying: any Error,
        recovery: String = "If the model changed, migrate the stored data or make the new fields optional"
    ) -> RepositoryError {
        RepositoryError(
            .decodingFailed, reason: "A stored record could not be decoded into the entity type",
            recovery: recovery, record: record, location: location, underlying: underlying)
    }

    /// The data at `location` was written by `version` of the entity, newer than
    /// `knownVersion`, the newest this app's ``Migrations`` know. Nothing was changed.
    ///
    /// - Parameters:
    ///   - version: the entity version the data was written with.
    ///   - knownVersion: the newest version this app knows (``Migrations/currentVersion``).
    ///   - location: the file, key or table holding the data.
    ///   - record: the record concerned, when one is.
    public static func writtenByNewerVersion(
        _ version: Int, knownVersion: Int, location: String?, record: String? = nil
    ) -> RepositoryError {
        RepositoryError(
            .writtenByNewerVersion,
            reason:
                "The data was written by version \(version) of the entity, and this app knows versions up to \(knownVersion)",
            recovery:
                "Update the app to a version that knows entity version \(version); the data was left untouched",
            record: record, location: location)
    }

    /// The repository was used after it was closed.
    public static func closed(location: String? = nil) -> RepositoryError {
        RepositoryError(
            .closed, reason: "The repository was closed", recovery: "Open the store again before using it",
            location: location)
    }
}
