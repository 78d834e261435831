import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// The offline-first stack over a real HTTP server (the fixture, which keeps idempotency
/// keys): a change whose answer was lost is sent again with its key and applied once.
@Suite struct OfflineFirstOverHTTPTests {
    private func device(_ url: URL, in directory: TemporaryDirectory) async throws
        -> OfflineFirstRepository<HTTPRepository<Todo>, FileRepository<Todo>>
    {
        let local = try await FileRepository<Todo>(fileURL: directory.file("todos.store"))
        let outbox = try await Outbox<Todo>(fileURL: directory.file("todos.outbox"))
        return HTTPRepository<Todo>(baseURL: url)
            .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
    }

    /// A form over the snapshot shows the server's field errors beside the fields of the
    /// change it refused.
    @Test func aRefusedSaveShowsItsErrorWithFieldErrorsInTheSnapshot() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let directory = try TemporaryDirectory()
            let todos = try await device(url, in: directory)
            try await todos.save(Todo(id: 1, title: ""))
            try await todos.save(.bread)

            // A new todo goes as a create of its own (`If-None-Match: *`), with no read first:
            // the create of 1 is refused, 2's goes through.
            try await server.script(url, [HTTPRefusalTests.refused])
            try await todos.sync()
            let snapshot = try await todos.snapshot(Query())
            #expect(snapshot.rejectedIDs == [1])
            #expect(Set(snapshot.rejections.keys) == [1])
            let error = try #require(snapshot.rejections[1])
            #expect(error.code == .rejected)
            #expect(error.reason.contains("422"), "\(error)")
            #expect(error.fieldErrors == ["title": ["must not be empty"]])
            #expect(error.httpStatus == 422)
            #expect(snapshot.pendingIDs.isEmpty, "the other change was sent")

            // The outbox keeps them on disk: a restart shows the same refusal.
            try await todos.local.close()
            try await todos.outbox.close()
            let reopened = try await device(url, in: directory)
            let again = try #require(try await reopened.snapshot(Query()).rejections[1])
            #expect(
                again.fieldErrors == ["title": ["must not be empty"]] && again.httpStatus == 422, "\(again)")
        }
    }

    @Test func aChangeWhoseAnswerWasLostIsSentAgainWithItsKeyAndAppliedOnce() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let directory = try TemporaryDirectory()
            let local = try await FileRepository<Todo>(fileURL: directory.file("todos.store"))
            let outbox = try await Outbox<Todo>(fileURL: directory.file("todos.outbox"))
            let todos = HTTPRepository<Todo>(baseURL: url)
                .retrying(
                    RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
                )
                .offlineFirst(local: local, outbox: outbox, conflicts: .lastWriterWins, automaticSync: nil)
            try await todos.save(.milk)
            let key = try #require(try await todos.outbox.change(for: 1)?.idempotencyKey)

            // A create goes with no read first; the server applies the PUT and its answer is
            // lost; the retry sends the same request again.
            try await server.script(url, [.loseAnswer])
            try await todos.sync()
            let puts = try await server.log(url).filter { $0.line.hasPrefix("PUT") }
            #expect(puts.count >= 2)
            #expect(puts.allSatisfy { $0.header("Idempotency-Key") == key }, "one logical write, one key")
            #expect(
                puts.dropFirst().allSatisfy { $0.replayed == true }, "applied once; every later try replayed")
            #expect(try await HTTPRepository<Todo>(baseURL: url).fetchAll() == [.milk])
            #expect(try await todos.outbox.changes().isEmpty)
        }
    }

    @Test func aChangeTheServerAppliedBeforeItsAnswerWasLostIsNotSentAgain() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let directory = try TemporaryDirectory()
            let todos = try await device(url, in: directory)
            try await todos.save(.milk)

            // A create goes with no read first; its answer is lost.
            try await server.script(url, [.loseAnswer])
            await #expect(throws: RepositoryError.self) { try await todos.sync() }
            guard case .pending(1, _) = try await todos.status(of: 1) else {
                Issue.record("a change whose answer was lost stays pending")
                return
            }
            let sentBefore = try await server.log(url).filter { $0.line.hasPrefix("PUT") }.count

            // The next sync reads the server's copy, finds the change there, and sends nothing.
            try await todos.sync()
            #expect(try await server.log(url).filter { $0.line.hasPrefix("PUT") }.count == sentBefore)
            #expect(try await HTTPRepository<Todo>(baseURL: url).fetchAll() == [.milk])
            #expect(isSynced(try await todos.status(of: 1)))
        }
    }

    /// The configuration of a remote whose transport runs another client's write inside its
    /// own request's time: the default timeout, 30 s, was seen to pass on a CI machine whose
    /// whole suite left a task waiting that long for a thread.
    static var patient: HTTPRepository<Todo>.Configuration {
        var configuration = HTTPRepository<Todo>.Configuration()
        configuration.timeout = .seconds(300)
        return configuration
    }

    /// A todo "Buy milk" at `url`, and a transport that lets another client save "Buy oat
    /// milk" just before each PUT it sends (with its own idempotency key: a detached task
    /// inherits none).
    private static func anotherClientWritingBeforeEachPUT(to url: URL) async throws
        -> (other: HTTPRepository<Todo>, transport: InterceptingTransport)
    {
        let other = HTTPRepository<Todo>(baseURL: url)
        try await other.save(Todo(id: 1, title: "Buy milk"))
        let transport = InterceptingTransport(
            when: { $0.httpMethod == "PUT" },
            before: {
                try await Task.detached { try await other.save(Todo(id: 1, title: "Buy oat milk")) }.value
            })
        return (other, transport)
    }

    /// Another client's write lands between the sync's read of a note and its write: the
    /// write carries `If-Match` with the tag read, the server refuses it, and the sync
    /// settles again against the other client's version instead of overwriting it.
    @Test(arguments: ["serverWins", "merge"])
    func aWriteLandingBetweenTheSyncsReadAndItsWriteIsCaughtByIfMatch(policy: String) async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let (other, transport) = try await Self.anotherClientWritingBeforeEachPUT(to: url)
            let conflicts: ConflictPolicy<Todo> =
                policy == "merge"
                ? .merge { _, mine, theirs in Todo(id: mine.id, title: theirs.title + " + " + mine.title) }
                : .serverWins
            let directory = try TemporaryDirectory()
            let local = try await FileRepository<Todo>(fileURL: directory.file("todos.store"))
            let outbox = try await Outbox<Todo>(fileURL: directory.file("todos.outbox"))
            let todos = HTTPRepository<Todo>(baseURL: url, configuration: Self.patient, transport: transport)
                .offlineFirst(local: local, outbox: outbox, conflicts: conflicts, automaticSync: nil)
            try await todos.sync()
            try await todos.save(Todo(id: 1, title: "Buy milk and eggs"))

            try await todos.sync()
            let expected = policy == "merge" ? "Buy oat milk + Buy milk and eggs" : "Buy oat milk"
            #expect(try await other.fetch(id: 1)?.title == expected, "the other client's write is not lost")
            #expect(try await todos.fetch(id: 1)?.title == expected)
            #expect(isSynced(try await todos.status(of: 1)))
            let writes = try await server.log(url).filter { $0.line.hasPrefix("PUT") }
            let conditional = writes.filter { $0.header("If-Match") != nil }
            #expect(conditional.first?.status == "412", "the first conditional write was refused")
            #expect(conditional.count == (policy == "merge" ? 2 : 1))
        }
    }

    /// Another client creates the todo between the sync's read (none there) and the sync's
    /// create of it: the create carries `If-None-Match: *`, the server refuses it, and the
    /// sync settles against the other client's todo instead of overwriting it.
    @Test func aCreateLandingAfterAnotherClientsIsCaughtByIfNoneMatch() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let other = HTTPRepository<Todo>(baseURL: url)
            let transport = InterceptingTransport(
                when: { $0.httpMethod == "PUT" },
                before: {
                    try await Task.detached { try await other.save(Todo(id: 1, title: "Buy oat milk")) }.value
                })
            let directory = try TemporaryDirectory()
            let local = try await FileRepository<Todo>(fileURL: directory.file("todos.store"))
            let outbox = try await Outbox<Todo>(fileURL: directory.file("todos.outbox"))
            let todos = HTTPRepository<Todo>(baseURL: url, configuration: Self.patient, transport: transport)
                .offlineFirst(local: local, outbox: outbox, conflicts: .serverWins, automaticSync: nil)
            try await todos.save(.milk)

            let report = try await todos.sync()
            #expect(
                try await other.fetch(id: 1)?.title == "Buy oat milk", "the other client's todo is not lost")
            #expect(try await todos.fetch(id: 1)?.title == "Buy oat milk")
            #expect(report.conflictedIDs == [1])
            #expect(isSynced(try await todos.status(of: 1)))
            let creates = try await server.log(url).filter {
                $0.line.hasPrefix("PUT") && $0.header("If-None-Match") == "*"
            }
            #expect(creates.map(\.status) == ["412"], "the sync's create was conditional, and refused")
        }
    }

    /// The same law with the remote wrapped in each decorator an app may put in front of
    /// it: each keeps the remote's version tags, so the sync still sends `If-Match` and the
    /// other client's write is settled, not overwritten.
    @Test(arguments: [
        "retrying", "timeout", "circuitBreaker", "instrumented", "observed", "coalescing", "mapped",
    ])
    func aDecoratedRemoteStillCatchesAWriteLandingBetweenTheSyncsReadAndItsWrite(decorator: String)
        async throws
    {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let (other, transport) = try await Self.anotherClientWritingBeforeEachPUT(to: url)
            let api = HTTPRepository<Todo>(baseURL: url, configuration: Self.patient, transport: transport)
            switch decorator {
            case "retrying": try await settleAgainstADecoratedRemote(api.retrying(.default))
            // The limit is not what this checks (the conditional write is): generous, since
            // the whole suite shares two cores in CI.
            case "timeout": try await settleAgainstADecoratedRemote(api.timeout(.seconds(300)))
            case "circuitBreaker": try await settleAgainstADecoratedRemote(api.circuitBreaker())
            case "instrumented": try await settleAgainstADecoratedRemote(api.instrumented { _ in })
            case "observed": try await settleAgainstADecoratedRemote(api.observed())
            case "coalescing": try await settleAgainstADecoratedRemote(api.coalescing())
            default: try await settleAgainstADecoratedRemote(api.mapped(toDomain: { $0 }, toStored: { $0 }))
            }
            #expect(
                try await other.fetch(id: 1)?.title == "Buy oat milk", "the other client's write is not lost")
            let conditional = try await server.log(url).filter {
                $0.line.hasPrefix("PUT") && $0.header("If-Match") != nil
            }
            #expect(conditional.first?.status == "412", "the sync's write carried If-Match and was refused")
        }
    }

    /// A read-only view of a tagging remote reads tagged copies and refuses the conditional
    /// writes as it refuses every write, sending nothing.
    @Test func aReadOnlyViewReadsTaggedCopiesAndRefusesConditionalWrites() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            try await HTTPRepository<Todo>(baseURL: url).save(.milk)
            let view = HTTPRepository<Todo>(baseURL: url).readOnly()
            let tagged = try #require(try await view.fetchTagged(id: 1))
            #expect(tagged.entity == .milk)
            let tag = try #require(tagged.tag, "the fixture sends an ETag")
            let writesBefore = try await server.log(url).filter { !$0.line.hasPrefix("GET") }.count
            let refused: @Sendable (any Error) -> Bool = { ($0 as? RepositoryError)?.code == .rejected }
            await #expect(performing: { try await view.save(.bread, ifMatch: tag) }, throws: refused)
            await #expect(performing: { try await view.delete(id: 1, ifMatch: tag) }, throws: refused)
            #expect(try await server.log(url).filter { !$0.line.hasPrefix("GET") }.count == writesBefore)
        }
    }

    /// Syncs an edit through `remote` under `.serverWins`, after another client changed the
    /// todo between the sync's read and its write.
    private func settleAgainstADecoratedRemote<Remote: Repository<Todo, Int>>(_ remote: Remote) async throws {
        #expect(remote is any VersionTaggingRepository<Todo, Int>, "\(Remote.self) hides the version tags")
        let directory = try TemporaryDirectory()
        let local = try await FileRepository<Todo>(fileURL: directory.file("todos.store"))
        let outbox = try await Outbox<Todo>(fileURL: directory.file("todos.outbox"))
        let todos = remote.offlineFirst(
            local: local, outbox: outbox, conflicts: .serverWins, automaticSync: nil)
        try await todos.sync()
        try await todos.save(Todo(id: 1, title: "Buy milk and eggs"))
        try await todos.sync()
        #expect(try await todos.fetch(id: 1)?.title == "Buy oat milk")
    }

    @Test func offlineEditsReachTheServerAfterARestart() async throws {
        try await withFixtureServer { server in
            let url = server.newCollection()
            let directory = try TemporaryDirectory()
            var todos = try await device(url, in: directory)
            try await todos.save(contentsOf: [.milk, .bread])
            try await todos.delete(id: 2)
            try await todos.local.close()
            try await todos.outbox.close()

            todos = try await device(url, in: directory)
            #expect(try await todos.fetchAll() == [.milk])
            try await todos.sync()
            #expect(try await HTTPRepository<Todo>(baseURL: url).fetchAll() == [.milk])
            #expect(try await todos.outbox.changes().isEmpty)
        }
    }

    private func isSynced(_ status: SyncStatus) -> Bool {
        if case .synced = status { return true }
        return false
    }
}
