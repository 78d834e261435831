import Repositories

// Reading the whole feed: from nil, page by page, to the end.
extension ChangeFeedConformance {
    func readFromNilDeliversEveryEntity(_ probe: _FeedProbe<Repo>) async throws {
        // Every kind of write, so the feed is more than the saves in the order made.
        try await probe.save(contentsOf: probe.entities(0..<8))
        try await probe.save(8)
        try await probe.save(9)
        try await probe.save(3, 1)
        try await probe.delete(5)
        try await probe.delete([6, 40])
        try await probe.save(contentsOf: probe.entities([10, 11]) + [probe.entity(2, 2)])
        try await probe.save(5, 3)
        var mirror = _FeedMirror<Entity>()
        try await probe.readToEnd(from: nil, applyingTo: &mirror)
        try await probe.expect(mirror, matchesStore: "after paging from nil to the end")
    }

    func pageHoldsEachIDOnce(_ probe: _FeedProbe<Repo>) async throws {
        // The same IDs written again and again, so that a feed that keeps one entry per
        // write rather than per ID puts them in a page several times.
        for revision in 0..<4 {
            try await probe.save(contentsOf: probe.entities([0, 1, 2], revision: revision))
        }
        try await probe.delete(1)
        try await probe.save(1, 5)
        try await probe.delete(2)
        try await probe.save(2, 6)
        try await probe.delete(2)
        try await probe.save(contentsOf: [probe.entity(3, 0), probe.entity(3, 1)])
        var mirror = _FeedMirror<Entity>()
        try await probe.readToEnd(from: nil, limit: 100, applyingTo: &mirror)
        let cursor = try await probe.readToEnd(from: nil, applyingTo: &mirror)
        for revision in 7..<10 { try await probe.save(0, revision) }
        try await probe.delete(0)
        try await probe.save(0, 11)
        try await probe.delete([3, 3])
        try await probe.readToEnd(from: cursor, limit: 100, applyingTo: &mirror)
        try await probe.readToEnd(from: cursor, applyingTo: &mirror)
        // The pages' shape is checked as they are read; a broken one is a finding.
    }

    func pageRespectsLimit(_ probe: _FeedProbe<Repo>) async throws {
        try await probe.save(contentsOf: probe.entities(0..<20))
        try await probe.delete([4, 9])
        try await probe.save(1, 1)
        var mirror = _FeedMirror<Entity>()
        var cursor: SyncCursor?
        for limit in [1, 2, probe.pageLimit, 7] {
            cursor = try await probe.readToEnd(from: nil, limit: limit, applyingTo: &mirror)
        }
        try await probe.save(contentsOf: probe.entities(20..<26))
        try await probe.delete([0, 1, 2])
        for limit in [1, 2] { try await probe.readToEnd(from: cursor, limit: limit, applyingTo: &mirror) }
        // The pages' size is checked as they are read; a broken one is a finding.
    }

    func lastPageHasNoMore(_ probe: _FeedProbe<Repo>) async throws {
        let empty = try await probe.page(since: nil)
        try probe.expect(
            !empty.hasMore && empty.saved.isEmpty,
            "on an empty store, changes(since: nil) answered \(probe.summary(empty)); expected nothing, hasMore: false"
        )
        try await probe.save(contentsOf: probe.entities(0..<10))
        try await probe.delete([2, 3])
        try await probe.save(4, 1)
        var mirror = _FeedMirror<Entity>()
        var cursor: SyncCursor? = nil
        for round in 1...2 {
            // readToEnd fails if no page says hasMore == false within the pages the writes can fill.
            let end = try await probe.readToEnd(from: cursor, applyingTo: &mirror)
            let after = try await probe.page(since: end)
            try probe.expect(
                after.saved.isEmpty && after.deleted.isEmpty && !after.hasMore,
                "a page said hasMore == false, yet a read from its cursor, with no write between, answered "
                    + "\(probe.summary(after)); expected nothing, hasMore: false")
            cursor = end
            if round == 1 {
                try await probe.save(contentsOf: probe.entities(10..<15))
                try await probe.delete(5)
            }
        }
    }
}
