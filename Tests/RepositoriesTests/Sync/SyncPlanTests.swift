import Foundation
import RepositoriesTesting
import Testing

@testable import Repositories

/// The push's plan from tables: which change is sent, acknowledged, kept from the remote or
/// merged, and which requests carry the changes sent, under which keys. No store, no remote.
@Suite struct SyncPlanTests {
    typealias Plan = SyncPlan<Item>

    /// A pending change of ID 1: saving `entity` (`nil`: deleting), made on `base`.
    static func change(_ entity: Item?, base: Item?, key: String = "k1", id: Int = 1) -> OutboxRecord<Item> {
        OutboxRecord<Item>(
            id: id, entity: entity, base: base, key: key, revision: 1, attempts: 0, lastError: nil,
            rejected: false, madeAt: Date(timeIntervalSince1970: 0))
    }

    /// What the plan decided, in words a table can hold.
    static func describe(_ decision: Plan.Decision) -> String {
        switch decision {
        case .alreadyApplied: "alreadyApplied"
        case .send: "send"
        case .keepRemote(let version): "keepRemote(\(version.map { "r\($0.revision)" } ?? "none"))"
        case .sendMerged(let merged): "sendMerged(r\(merged.revision))"
        }
    }

    static let v0 = item(1, 0)
    static let v1 = item(1, 1)
    static let v2 = item(1, 2)
    /// Merges by taking the higher revision plus 10, so a table can tell a merge apart.
    static let merge = ConflictPolicy<Item>.merge { _, mine, theirs in
        item(1, max(mine.revision, theirs.revision) + 10)
    }

    struct Row: CustomTestStringConvertible, Sendable {
        var name: String
        var local: Item?
        var base: Item?
        var remote: Item?
        var policy: String
        var expected: String
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        // The remote holds the change already: acknowledged, whatever the policy.
        Row(
            name: "landed save", local: v1, base: v0, remote: v1, policy: "serverWins",
            expected: "alreadyApplied"),
        Row(
            name: "landed delete", local: nil, base: v0, remote: nil, policy: "merge",
            expected: "alreadyApplied"),
        // The remote is still at the base: no conflict.
        Row(
            name: "unchanged remote", local: v1, base: v0, remote: v0, policy: "serverWins", expected: "send"),
        Row(name: "new entity", local: v1, base: nil, remote: nil, policy: "serverWins", expected: "send"),
        Row(name: "delete of unchanged", local: nil, base: v0, remote: v0, policy: "merge", expected: "send"),
        // The remote changed meanwhile: the policy decides.
        Row(name: "lww save", local: v1, base: v0, remote: v2, policy: "lastWriterWins", expected: "send"),
        Row(name: "lww delete", local: nil, base: v0, remote: v2, policy: "lastWriterWins", expected: "send"),
        Row(
            name: "server wins save", local: v1, base: v0, remote: v2, policy: "serverWins",
            expected: "keepRemote(r2)"),
        Row(
            name: "server wins over a remote delete", local: v1, base: v0, remote: nil, policy: "serverWins",
            expected: "keepRemote(none)"),
        Row(
            name: "merge two saves", local: v1, base: v0, remote: v2, policy: "merge",
            expected: "sendMerged(r12)"),
        Row(
            name: "merge: a local delete yields to a remote change", local: nil, base: v0, remote: v2,
            policy: "merge", expected: "keepRemote(r2)"),
        Row(
            name: "merge: a local save outlives a remote delete", local: v1, base: v0, remote: nil,
            policy: "merge",
            expected: "send"),
        Row(
            name: "merge: created here and there", local: v1, base: nil, remote: v2, policy: "merge",
            expected: "sendMerged(r12)"),
    ]

    @Test(arguments: rows)
    func eachChangeIsSettledAsTheTableSays(_ row: Row) {
        let policy: ConflictPolicy<Item> =
            switch row.policy {
            case "lastWriterWins": .lastWriterWins
            case "serverWins": .serverWins
            default: Self.merge
            }
        let decision = Plan.decide(Self.change(row.local, base: row.base), remote: row.remote, policy: policy)
        #expect(Self.describe(decision) == row.expected)
    }

    /// A remote at a version this device sent earlier, unanswered, is at the device's own
    /// write: the later change is sent over it under every policy; any other version is a
    /// conflict as before.
    @Test func aRemoteAtTheDevicesOwnUnansweredWriteIsNoConflict() {
        for policy in [ConflictPolicy<Item>.serverWins, .lastWriterWins, Self.merge] {
            var save = Self.change(Self.v2, base: Self.v0)
            save.possiblyApplied = [PossiblyApplied(entity: Self.v1)]
            #expect(Self.describe(Plan.decide(save, remote: Self.v1, policy: policy)) == "send")
            var delete = Self.change(nil, base: Self.v0)
            delete.possiblyApplied = [PossiblyApplied(entity: Self.v1)]
            #expect(Self.describe(Plan.decide(delete, remote: Self.v1, policy: policy)) == "send")
            var recreate = Self.change(Self.v2, base: Self.v0)
            recreate.possiblyApplied = [PossiblyApplied(entity: nil)]
            #expect(Self.describe(Plan.decide(recreate, remote: nil, policy: policy)) == "send")
        }
        var save = Self.change(Self.v2, base: Self.v0)
        save.possiblyApplied = [PossiblyApplied(entity: Self.v1)]
        #expect(Self.describe(Plan.decide(save, remote: item(1, 7), policy: .serverWins)) == "keepRemote(r7)")
    }

    @Test func aConflictsRecordIsNamedByTheChangeAndTheRemotesVersion() throws {
        let record = Self.change(Self.v2, base: Self.v0)
        let settled = Plan.settle(record, remote: Self.v1, policy: .serverWins)
        let first = try #require(Plan.conflict(record, remote: Self.v1, settlement: settled, at: Date()))
        let again = try #require(Plan.conflict(record, remote: Self.v1, settlement: settled, at: Date()))
        #expect(first.id == again.id, "settled again, the same conflict: kept once")
        #expect(first.result == Self.v1)
        #expect(first.resolution == .remoteKept)
        let later = Plan.settle(record, remote: item(1, 7), policy: .serverWins)
        #expect(Plan.conflict(record, remote: item(1, 7), settlement: later, at: Date())?.id != first.id)
        let rekeyed = Self.change(Self.v2, base: Self.v0, key: "k2")
        #expect(Plan.conflict(rekeyed, remote: Self.v1, settlement: settled, at: Date())?.id != first.id)
        let none = Plan.settle(record, remote: Self.v0, policy: .serverWins)
        #expect(Plan.conflict(record, remote: Self.v0, settlement: none, at: Date()) == nil, "no conflict")
    }

    // MARK: Creating if absent

    struct CreateRow: CustomTestStringConvertible, Sendable {
        var name: String
        var local: Item?
        var base: Item?
        var remote: Item?
        /// The key of the request that carried the change unanswered, if any (its own is "k1").
        var sentKey: String?
        var sentCondition: SentCondition?
        var createsConditionally = true
        var expected: Bool
        var testDescription: String { name }
    }

    static let createRows: [CreateRow] = [
        CreateRow(
            name: "a new entity the remote holds no copy of", local: v1, base: nil, remote: nil,
            expected: true),
        CreateRow(
            name: "the same on a remote that cannot create conditionally", local: v1, base: nil, remote: nil,
            createsConditionally: false, expected: false),
        CreateRow(
            name: "a new entity another client created (sent on its tag, or over it)", local: v1, base: nil,
            remote: v2, expected: false),
        CreateRow(
            name: "a change made on a version the remote deleted since", local: v1, base: v0, remote: nil,
            expected: false),
        CreateRow(
            name: "a delete of an entity never synced", local: nil, base: nil, remote: nil, expected: false),
        CreateRow(
            name: "a create sent alone under its key, unanswered, and absent still", local: v1, base: nil,
            remote: nil, sentKey: "k1", sentCondition: .ifAbsent, expected: true),
        CreateRow(
            name: "a create sent alone under its key, unanswered, a copy there now (the same request again)",
            local: v1, base: nil, remote: v2, sentKey: "k1", sentCondition: .ifAbsent, expected: true),
        CreateRow(
            name: "a plain save over an untagged copy, unanswered, the copy there still (a plain save again)",
            local: v1, base: nil, remote: v2, sentKey: "k1", expected: false),
        CreateRow(
            name: "a plain save over an untagged copy, unanswered, no copy now (a plain save again)",
            local: v1, base: nil, remote: nil, sentKey: "k1", expected: false),
        CreateRow(
            name: "a new entity sent in a batch, unanswered (the batch goes again whole)", local: v1,
            base: nil,
            remote: nil, sentKey: "batch", expected: false),
        CreateRow(
            name: "a create sent unanswered, on a remote that cannot create conditionally", local: v1,
            base: nil, remote: nil, sentKey: "k1", createsConditionally: false, expected: false),
    ]

    /// Which changes go as a create the remote refuses once it holds a copy of the ID: a save
    /// made on no remote version that found none, and such a create sent before, unanswered;
    /// a plain save sent before, unanswered, goes again as the plain save it was.
    @Test(arguments: createRows)
    func aChangeWithNoBaseThatFoundNoCopyGoesAsACreateIfAbsent(_ row: CreateRow) {
        var record = Self.change(row.local, base: row.base)
        record.sentKey = row.sentKey
        record.sentCondition = row.sentCondition
        let creates = Plan.createsIfAbsent(
            record, remote: row.remote, createsConditionally: row.createsConditionally)
        #expect(creates == row.expected)
    }

    // MARK: Requests

    /// `s` a save, `d` a delete, `t` a save on a tagged version, `n` a save that goes as a
    /// create if absent; each change's key is its ID.
    static func outgoing(_ pattern: String) -> [Plan.Outgoing] {
        pattern.enumerated().map { index, kind in
            let record = change(kind == "d" ? nil : item(index), base: nil, key: "k\(index)", id: index)
            return Plan.Outgoing(
                record: record, tag: kind == "t" ? "tag\(index)" : nil, ifAbsent: kind == "n")
        }
    }

    /// The requests in words: `S[0,1]` saves of IDs 0 and 1, `D[2]`, `C2@tag2`, `N3` a create
    /// of 3 if absent.
    static func describe(_ requests: [Plan.Request]) -> String {
        requests.map { request in
            switch request {
            case .conditional(let record, let tag): "C\(record.id)@\(tag)"
            case .create(let record): "N\(record.id)"
            case .saves(let run, _): "S\(run.map(\.id))"
            case .deletes(let run, _): "D\(run.map(\.id))"
            }
        }.joined(separator: " ")
    }

    @Test(arguments: [
        ("", ""),
        ("s", "S[0]"),
        ("sss", "S[0, 1, 2]"),
        ("ssdds", "S[0, 1] D[2, 3] S[4]"),
        ("stst", "S[0] C1@tag1 S[2] C3@tag3"),
        ("tt", "C0@tag0 C1@tag1"),
        ("dtd", "D[0] C1@tag1 D[2]"),
        ("n", "N0"),
        ("nn", "N0 N1"),
        ("snnsd", "S[0] N1 N2 S[3] D[4]"),
        ("tnd", "C0@tag0 N1 D[2]"),
    ])
    func changesGoInTheLongestRunsBetweenConditionalOnes(pattern: String, expected: String) {
        #expect(Self.describe(Plan.requests(for: Self.outgoing(pattern))) == expected)
    }

    /// Changes a request carried that went unanswered go out together again, in one request
    /// under its key, where the first of them stands, whatever stands between them now.
    @Test func anUnansweredRequestIsSentAgainWholeUnderItsKey() {
        var changes = Self.outgoing("sssds")
        changes[1].record.sentKey = "lost"
        changes[3].record.sentKey = "lost"
        changes[3].record.entity = item(3)  // a save, as every change of that request was
        let requests = Plan.requests(for: changes)
        #expect(Self.describe(requests) == "S[0] S[1, 3] S[2] S[4]")
        guard case .saves(_, let key) = requests[1] else {
            Issue.record("the unanswered request is a run of saves")
            return
        }
        #expect(key == "lost")
        guard case .saves(_, let other) = requests[2] else { return }
        #expect(other == Plan.key(of: [changes[2].record]))
    }

    /// A create sent alone under its own key and unanswered goes out again as that create,
    /// tagged or not now; the changes of an unanswered batch go together again as before.
    @Test func anUnansweredCreateIsSentAgainAsTheCreateItWas() {
        var changes = Self.outgoing("tnss")
        changes[0].record.sentKey = "k0"
        changes[0].ifAbsent = true
        changes[2].record.sentKey = "lost"
        changes[3].record.sentKey = "lost"
        #expect(Self.describe(Plan.requests(for: changes)) == "N0 N1 S[2, 3]")
    }

    @Test func aRunsKeyIsTheChangesOwnAloneAndOneDerivedFromTheirsTogether() {
        let one = [Self.change(Self.v1, base: nil, key: "only")]
        #expect(Plan.key(of: one) == "only")
        let run = (0..<3).map { Self.change(item($0), base: nil, key: "k\($0)", id: $0) }
        #expect(Plan.key(of: run) == Plan.key(of: run), "the same run, the same key on every try")
        #expect(Plan.key(of: run).hasPrefix("batch-3-"))
        #expect(Plan.key(of: run) != Plan.key(of: Array(run.reversed())))
        #expect(
            Plan.key(of: one[0], on: "v1") != Plan.key(of: one[0], on: "v2"),
            "a newer version, another request")
        #expect(Plan.key(of: one[0], on: "v1").hasPrefix("only@"))
    }

    /// Entities that are not `Equatable` compare by their JSON, keys sorted.
    @Test func versionsThatAreNotEquatableCompareByTheirEncoding() {
        struct Plain: Codable, Identifiable, Sendable {
            var id: Int
            var tags: [String: Int]
        }
        #expect(
            SyncPlan<Plain>.same(Plain(id: 1, tags: ["a": 1, "b": 2]), Plain(id: 1, tags: ["b": 2, "a": 1])))
        #expect(!SyncPlan<Plain>.same(Plain(id: 1, tags: ["a": 1]), Plain(id: 1, tags: ["a": 2])))
        #expect(SyncPlan<Plain>.same(nil, nil) && !SyncPlan<Plain>.same(Plain(id: 1, tags: [:]), nil))
    }
}
