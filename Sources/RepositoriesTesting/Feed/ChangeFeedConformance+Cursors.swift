import Foundation
import Repositories

// Reading after a cursor: what changed comes back, nothing else, and re-reading or keeping
// the cursor as JSON does no harm.
extension ChangeFeedConformance {
    /// One round of writes after a cursor, and what the feed answered from it.
    struct RoundAfterCursor {
        /// What the writes were, for messages.
        var name: String
        /// The cursor, as traces name it.
        var cursor: String
        /// The IDs stored when the cursor was taken.
        var before: Set<Repo.ID>
        /// The entities stored after the writes.
        var after: [Repo.ID: Entity]
        /// The IDs saved, and the IDs deleted, after the cursor (`deleteAll()` deletes every
        /// ID ever saved).
        var saved: Set<Repo.ID>
        var deleted: Set<Repo.ID>
        /// What the pages from the cursor said of each ID: the entity, or `nil` (deleted).
        var statements: [Repo.ID: Entity?]
    }

    /// Takes a cursor, makes each round of writes, reads from the cursor to the end and
    /// hands the round to `check`; then reads on from the last page's cursor, and finally
    /// compares the reader's mirror with the store.
    func roundsAfterCursor(
        _ probe: _FeedProbe<Repo>, _ check: (RoundAfterCursor) throws -> Void
    ) async throws {
        let rounds: [(String, (_FeedProbe<Repo>) async throws -> Void)] = [
            (
                "a save, a replacement, a delete and a delete of an absent ID",
                { probe in
                    try await probe.save(12)
                    try await probe.save(1, 1)
                    try await probe.delete(2)
                    try await probe.delete(40)
                }
            ),
            (
                "a batch save, a batch delete and a replacement",
                { probe in
                    try await probe.save(contentsOf: [probe.entity(3, 1), probe.entity(13), probe.entity(14)])
                    try await probe.delete([4, 5, 41])
                    try await probe.save(13, 2)
                }
            ),
            (
                "an entity created then deleted, and one deleted then saved again",
                { probe in
                    try await probe.save(15)
                    try await probe.delete(15)
                    try await probe.delete(6)
                    try await probe.save(6, 2)
                }
            ),
            ("deleteAll()", { probe in try await probe.deleteAll() }),
            ("a save after deleteAll()", { probe in try await probe.save(0, 3) }),
        ]
        try await probe.save(contentsOf: probe.entities(0..<12))
        var mirror = _FeedMirror<Entity>()
        var cursor = try await probe.readToEnd(from: nil, applyingTo: &mirror)
        for (name, writes) in rounds {
            let before = Set(try await probe.fetchAll().map(\.id))
            probe.markCursor()
            try await writes(probe)
            let after = try await probe.fetchAll()
            let cursorName = probe.name(of: cursor)
            let (statements, end) = try await probe.statements(since: cursor, applyingTo: &mirror)
            try check(
                RoundAfterCursor(
                    name: name, cursor: cursorName, before: before,
                    after: Dictionary(after.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last }),
                    saved: probe.savedSinceMark, deleted: probe.deletedSinceMark, statements: statements))
            cursor = end
        }
        try await probe.expect(mirror, matchesStore: "after reading on from each round's cursor")
    }

    func changesAfterCursorComeBack(_ probe: _FeedProbe<Repo>) async throws {
        let catalog = probe.catalog
        try await roundsAfterCursor(probe) { round in
            let context = "after \(round.cursor) came \(round.name)"
            for id in round.saved {
                guard let stored = round.after[id] else { continue }
                switch round.statements[id] {
                case .some(.some(let answered)) where answered == stored: continue
                case .some(.some(let answered)):
                    throw LawBroken(
                        "\(context); \(catalog.describe(id: id)) came back as \(catalog.describe(answered)), "
                            + "but the store holds \(catalog.describe(stored))")
                case .some(.none):
                    throw LawBroken(
                        "\(context); \(catalog.describe(id: id)) came back deleted, "
                            + "but the store holds \(catalog.describe(stored))")
                case .none:
                    throw LawBroken("\(context); \(catalog.describe(stored)), saved since, did not come back")
                }
            }
            for id in round.before where round.after[id] == nil {
                guard case .some(.none) = round.statements[id] else {
                    throw LawBroken(
                        "\(context); \(catalog.describe(id: id)) was deleted since, but did not come back among deleted"
                    )
                }
            }
            for case (let id, let entity?) in round.statements where round.after[id] == nil {
                throw LawBroken(
                    "\(context); \(catalog.describe(entity)) came back among saved, but the store no longer holds it"
                )
            }
        }
    }

    func untouchedEntitiesStayOut(_ probe: _FeedProbe<Repo>) async throws {
        let catalog = probe.catalog
        try await roundsAfterCursor(probe) { round in
            let untouched = round.statements.keys.filter {
                !round.saved.contains($0) && !round.deleted.contains($0)
            }
            guard let id = untouched.first else { return }
            let how =
                round.statements[id].map { $0.map { "as \(catalog.describe($0))" } ?? "among deleted" } ?? ""
            throw LawBroken(
                "after \(round.cursor) came \(round.name); \(catalog.describe(ids: Array(untouched))) came back "
                    + "though untouched since (\(catalog.describe(id: id)) \(how))")
        }
    }

    func rereadPageIsHarmless(_ probe: _FeedProbe<Repo>) async throws {
        try await probe.save(contentsOf: probe.entities(0..<10))
        var mirror = _FeedMirror<Entity>()
        var cursor = try await probe.readToEnd(from: nil, applyingTo: &mirror)

        // A reader that lost a page before applying it reads it again.
        try await probe.save(1, 1)
        try await probe.delete(2)
        try await probe.save(contentsOf: [probe.entity(10), probe.entity(11), probe.entity(3, 1)])
        try await probe.delete([4])
        _ = try await probe.page(since: cursor)
        probe.note("— the page is lost before it is applied —")
        let again = try await probe.page(since: cursor)
        mirror.apply(again)
        cursor = try await probe.readToEnd(from: again.next, applyingTo: &mirror)
        try await probe.expect(mirror, matchesStore: "after reading a lost page again from its cursor")

        // A reader that applied a page and read it again (it had not kept the cursor yet),
        // with writes between the two reads.
        try await probe.save(5, 2)
        try await probe.delete(1)
        try await probe.save(12)
        try await probe.save(0, 1)
        let first = try await probe.page(since: cursor)
        mirror.apply(first)
        try await probe.save(0, 2)
        try await probe.delete(12)
        try await probe.save(13)
        let second = try await probe.page(since: cursor)
        mirror.apply(second)
        try await probe.readToEnd(from: second.next, applyingTo: &mirror)
        try await probe.expect(
            mirror, matchesStore: "after applying a page, reading it again and applying that too")
    }

    /// How a device keeps its cursor: beside other state, as JSON.
    struct KeptCursor: Codable {
        var cursor: SyncCursor
        var device: String
    }

    func cursorSurvivesCoding(_ probe: _FeedProbe<Repo>) async throws {
        try await probe.save(contentsOf: probe.entities(0..<6))
        var mirror = _FeedMirror<Entity>()
        let cursor = try await probe.readToEnd(from: nil, applyingTo: &mirror)
        let data = try JSONEncoder().encode(KeptCursor(cursor: cursor, device: "phone"))
        let decoded = try JSONDecoder().decode(KeptCursor.self, from: data).cursor
        probe.note(
            "kept \(probe.name(of: cursor)) as JSON: \(String(decoding: data.prefix(200), as: UTF8.self))")
        try probe.expect(
            decoded == cursor,
            "\(probe.name(of: cursor)) read back from JSON as \"\(decoded.token)\", not \"\(cursor.token)\"")
        try await probe.save(1, 1)
        try await probe.delete(2)
        try await probe.save(6)
        try await probe.readToEnd(from: decoded, applyingTo: &mirror)
        try await probe.expect(mirror, matchesStore: "after reading from the cursor read back from JSON")
    }
}
