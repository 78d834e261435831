import Repositories

// What a feed must refuse rather than answer: cursors it cannot answer from, and limits
// that ask for nothing.
extension ChangeFeedConformance {
    func unissuedCursorExpires(_ probe: _FeedProbe<Repo>) async throws {
        try await probe.save(contentsOf: probe.entities(0..<10))
        try await probe.delete(3)
        var mirror = _FeedMirror<Entity>()
        let cursor = try await probe.readToEnd(from: nil, applyingTo: &mirror)
        let name = probe.name(of: cursor)
        let token = cursor.token
        let forged: [(label: String, cursor: SyncCursor)] = [
            ("an empty token", SyncCursor("")),
            ("a garbage token", SyncCursor("not a cursor")),
            ("a token of emoji and a NUL", SyncCursor("🚀\u{0}")),
            ("a token of 40 nines", SyncCursor(String(repeating: "9", count: 40))),
            ("\(name) with \"0\" appended", SyncCursor(token + "0")),
            ("\(name) with \"~\" appended", SyncCursor(token + "~")),
            ("\(name) with \"~\" prepended", SyncCursor("~" + token)),
        ]
        for (label, forgedCursor) in forged {
            try await probe.expectRefusal(.cursorExpired, since: forgedCursor, label)
        }

        // A cursor from another store, whose history is longer than this one's.
        let other = try await makeRepository()
        let otherCursor: SyncCursor
        do {
            let writer = options.writableStore?(other) ?? other
            try await writer.save(contentsOf: (0..<24).map { makeEntity($0, 1) })
            try await writer.delete(ids: [makeEntity(0, 1).id])
            var page = try await other.changes(since: nil, limit: 100)
            while page.hasMore { page = try await other.changes(since: page.next, limit: 100) }
            otherCursor = page.next
        } catch {
            try await options.tearDown?(other)
            throw LawBroken(
                "setting up a second store (24 saves, one delete, read to its end) threw \(error)")
        }
        try await options.tearDown?(other)
        probe.note("a second store from makeRepository(): 24 saves, one delete, read to its end")
        try await probe.expectRefusal(.cursorExpired, since: otherCursor, "the second store's last cursor")

        // The store still answers from its own cursor.
        try await probe.save(1, 1)
        try await probe.readToEnd(from: cursor, applyingTo: &mirror)
        try await probe.expect(mirror, matchesStore: "after the refusals, reading on from \(name)")
    }

    func nonPositiveLimitIsRejected(_ probe: _FeedProbe<Repo>) async throws {
        try await probe.save(contentsOf: probe.entities(0..<3))
        var mirror = _FeedMirror<Entity>()
        let cursor = try await probe.readToEnd(from: nil, applyingTo: &mirror)
        try await probe.save(3)
        for limit in [0, -1] {
            try await probe.expectRefusal(.rejected, since: nil, limit: limit, "nil")
            try await probe.expectRefusal(.rejected, since: cursor, limit: limit, probe.name(of: cursor))
        }
    }

    func forgottenDeletionsExpireCursors(_ probe: _FeedProbe<Repo>) async throws {
        guard let expireCursors = options.expireCursors else { return }
        try await probe.save(contentsOf: probe.entities(0..<10))
        var mirror = _FeedMirror<Entity>()
        let cursor = try await probe.readToEnd(from: nil, applyingTo: &mirror)
        try await probe.delete(1)
        try await probe.delete([2, 3])
        try await probe.save(10)
        try await probe.save(4, 1)
        probe.note("— expireCursors: the store forgets its deletions —")
        do {
            try await expireCursors(probe.feed)
        } catch {
            throw LawBroken("ChangeFeedConformanceOptions.expireCursors threw \(error)")
        }
        try await probe.expectRefusal(
            .cursorExpired, since: cursor, "\(probe.name(of: cursor)), older than the deletions forgotten")

        // The reader starts again from nil, and the cursor it gets works.
        var fresh = _FeedMirror<Entity>()
        let restart = try await probe.readToEnd(from: nil, applyingTo: &fresh)
        try await probe.expect(
            fresh, matchesStore: "after the cursor expired and the reader read again from nil")
        try await probe.delete(5)
        try await probe.save(11)
        try await probe.save(0, 1)
        try await probe.readToEnd(from: restart, applyingTo: &fresh)
        try await probe.expect(
            fresh, matchesStore: "reading on from a cursor issued after the deletions were forgotten")
    }
}
