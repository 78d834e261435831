import Repositories

// A cursor kept across closing and reopening the store.
extension ChangeFeedConformance {
    func cursorSurvivesReopen(_ probe: _FeedProbe<Repo>) async throws {
        guard let reopen = options.reopen else { return }
        try await probe.save(contentsOf: probe.entities(0..<10))
        try await probe.delete(9)
        var mirror = _FeedMirror<Entity>()
        let beforeClose = try await probe.readToEnd(from: nil, applyingTo: &mirror)
        try await probe.save(1, 1)
        try await probe.delete(2)
        try await probe.save(10)
        try await probe.save(contentsOf: [probe.entity(3, 1), probe.entity(11)])
        try await probe.reopen(with: reopen)
        let caughtUp = try await answerOrExpire(
            probe, from: beforeClose, into: &mirror, "a cursor taken before closing, with writes after it")

        // A cursor taken just before closing, then fewer writes after reopening than before
        // it: a feed that numbered its changes afresh on reopening would answer nothing.
        try await probe.reopen(with: reopen)
        try await probe.save(4, 2)
        try await answerOrExpire(probe, from: caughtUp, into: &mirror, "a cursor taken just before closing")
    }

    /// Reads from `cursor` to the end into `mirror` and checks it against the store; when the
    /// feed says the cursor expired, reads from `nil` into a new mirror instead (as a device
    /// does) and checks that. Returns the last page's cursor.
    @discardableResult
    func answerOrExpire(
        _ probe: _FeedProbe<Repo>, from cursor: SyncCursor, into mirror: inout _FeedMirror<Entity>,
        _ what: String
    ) async throws -> SyncCursor {
        let name = probe.name(of: cursor)
        do {
            let end = try await probe.readToEnd(from: cursor, applyingTo: &mirror)
            try await probe.expect(mirror, matchesStore: "reading after reopening from \(name), \(what)")
            return end
        } catch let error as RepositoryError where error.code == .cursorExpired {
            probe.report(
                "cursorSurvivesReopen: the store expired \(what) when reopened (allowed; devices read in full)"
            )
            mirror = _FeedMirror()
            let end = try await probe.readToEnd(from: nil, applyingTo: &mirror)
            try await probe.expect(
                mirror, matchesStore: "reading from nil after \(name) expired on reopening")
            return end
        }
    }
}
