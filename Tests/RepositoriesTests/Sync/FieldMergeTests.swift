import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

/// An errand on a shared board: top-level fields of every kind the merge meets.
struct Errand: Identifiable, Codable, Sendable, Equatable {
    /// A value nested in the ticket, which the merge takes whole.
    struct Place: Codable, Sendable, Equatable {
        var room: String
        var floor: Int
    }

    var id: Int
    var title = "Fix the door"
    var notes = ""
    var status = "open"
    var due: Date?
    var place = Place(room: "Hall", floor: 1)
    /// Added by an app update; the migration sets 0 on the device, the server set its own.
    var priority = 0
    /// Added by an app update as an optional: records written before hold none.
    var label: String?

    /// The ticket with `field` set to `value`.
    func with<Value>(_ field: WritableKeyPath<Errand, Value>, _ value: Value) -> Errand {
        var copy = self
        copy[keyPath: field] = value
        return copy
    }
}

/// One row of the merge's table: three versions, a tie, and what the merge must return.
struct FieldMergeCase: Sendable, CustomTestStringConvertible {
    var law: String
    var base: Errand?
    var local: Errand?
    var remote: Errand?
    var tie: ConflictPolicy<Errand>.Tie = .remote
    var result: Errand?
    var resolution: ConflictResolution

    var testDescription: String { law }
}

private let base = Errand(id: 1)
private let monday = Date(timeIntervalSince1970: 1_700_000_000)
private let friday = Date(timeIntervalSince1970: 1_700_345_600)

private func fields(
    local: [String] = [], remote: [String] = [], tied: [String: ConflictSide] = [:]
) -> ConflictResolution {
    .mergedByField(localFields: local, remoteFields: remote, tiedFields: tied)
}

@Suite struct FieldMergeTests {
    static let cases: [FieldMergeCase] = [
        FieldMergeCase(
            law: "a field only the device changed takes the device's value",
            base: base, local: base.with(\.notes, "call back"), remote: base,
            result: base.with(\.notes, "call back"), resolution: fields(local: ["notes"])),
        FieldMergeCase(
            law: "a field only the remote changed takes the remote's value",
            base: base, local: base, remote: base.with(\.status, "done"),
            result: base.with(\.status, "done"), resolution: fields(remote: ["status"])),
        FieldMergeCase(
            law: "each side changed a different field: both changes are kept",
            base: base, local: base.with(\.notes, "call back"), remote: base.with(\.status, "done"),
            result: base.with(\.notes, "call back").with(\.status, "done"),
            resolution: fields(local: ["notes"], remote: ["status"])),
        FieldMergeCase(
            law: "a field both changed differently takes the remote's under the tie .remote",
            base: base, local: base.with(\.title, "Fix the hall door").with(\.notes, "call back"),
            remote: base.with(\.title, "Replace the door"),
            result: base.with(\.title, "Replace the door").with(\.notes, "call back"),
            resolution: fields(local: ["notes"], tied: ["title": .remote])),
        FieldMergeCase(
            law: "a field both changed differently takes the device's under the tie .local",
            base: base, local: base.with(\.title, "Fix the hall door"),
            remote: base.with(\.title, "Replace the door").with(\.status, "done"), tie: .local,
            result: base.with(\.title, "Fix the hall door").with(\.status, "done"),
            resolution: fields(remote: ["status"], tied: ["title": .local])),
        FieldMergeCase(
            law: "a field both changed to the same value takes it, and is no tie",
            base: base, local: base.with(\.status, "done"),
            remote: base.with(\.status, "done").with(\.notes, "called"), tie: .local,
            result: base.with(\.status, "done").with(\.notes, "called"),
            resolution: fields(remote: ["notes"])),
        FieldMergeCase(
            law: "a closure decides each tied field by its name",
            base: base, local: base.with(\.title, "Fix the hall door").with(\.status, "waiting"),
            remote: base.with(\.title, "Replace the door").with(\.status, "done"),
            tie: .custom { field, _, _, _ in field == "title" ? .local : .remote },
            result: base.with(\.title, "Fix the hall door").with(\.status, "done"),
            resolution: fields(tied: ["status": .remote, "title": .local])),
        FieldMergeCase(
            law: "a closure sees the three versions",
            base: base, local: base.with(\.status, "waiting").with(\.priority, 3),
            remote: base.with(\.status, "done").with(\.priority, 1),
            tie: .custom { _, _, local, remote in
                (local?.priority ?? 0) > (remote?.priority ?? 0) ? .local : .remote
            },
            result: base.with(\.status, "waiting").with(\.priority, 3),
            resolution: fields(tied: ["priority": .local, "status": .local])),
        FieldMergeCase(
            law: "without a base the tie .remote keeps the remote's version whole",
            base: nil, local: base.with(\.notes, "call back"), remote: base.with(\.status, "done"),
            result: base.with(\.status, "done"), resolution: .tieTookRemote),
        FieldMergeCase(
            law: "without a base the tie .local keeps the device's version whole",
            base: nil, local: base.with(\.notes, "call back"), remote: base.with(\.status, "done"),
            tie: .local, result: base.with(\.notes, "call back"), resolution: .tieTookLocal),
        FieldMergeCase(
            law: "a closure deciding the whole entity is asked with no field",
            base: nil, local: base.with(\.notes, "call back"), remote: base.with(\.status, "done"),
            tie: .custom { field, _, _, _ in field == nil ? .local : .remote },
            result: base.with(\.notes, "call back"), resolution: .tieTookLocal),
        FieldMergeCase(
            law: "the device deleted what the remote changed: the tie .remote keeps the remote's",
            base: base, local: nil, remote: base.with(\.status, "done"),
            result: base.with(\.status, "done"), resolution: .tieTookRemote),
        FieldMergeCase(
            law: "the device deleted what the remote changed: the tie .local keeps the deletion",
            base: base, local: nil, remote: base.with(\.status, "done"), tie: .local,
            result: nil, resolution: .tieTookLocal),
        FieldMergeCase(
            law: "the remote deleted what the device changed: the tie .remote keeps the deletion",
            base: base, local: base.with(\.notes, "call back"), remote: nil,
            result: nil, resolution: .tieTookRemote),
        FieldMergeCase(
            law: "the remote deleted what the device changed: the tie .local keeps the change",
            base: base, local: base.with(\.notes, "call back"), remote: nil, tie: .local,
            result: base.with(\.notes, "call back"), resolution: .tieTookLocal),
        FieldMergeCase(
            law: "a nested value is one field: changes to two of its parts are a tie",
            base: base, local: base.with(\.place.room, "Lab"), remote: base.with(\.place.floor, 2),
            result: base.with(\.place.floor, 2), resolution: fields(tied: ["place": .remote])),
        FieldMergeCase(
            law: "an optional field set on one side is that side's change",
            base: base, local: base.with(\.due, friday), remote: base.with(\.status, "done"),
            result: base.with(\.due, friday).with(\.status, "done"),
            resolution: fields(local: ["due"], remote: ["status"])),
        FieldMergeCase(
            law: "an optional field cleared on one side is that side's change",
            base: base.with(\.due, monday), local: base.with(\.due, monday).with(\.notes, "call back"),
            remote: base, result: base.with(\.notes, "call back"),
            resolution: fields(local: ["notes"], remote: ["due"])),
        FieldMergeCase(
            law: "an optional field cleared on one side and changed on the other is a tie",
            base: base.with(\.due, monday), local: base, remote: base.with(\.due, friday), tie: .local,
            result: base, resolution: fields(tied: ["due": .local])),
        FieldMergeCase(
            law: "after an app update, the server's value of the new field is taken and the edit kept",
            // The outbox's base and the device's copy were upgraded by the same migration, so
            // both hold its default; the server filled the field with a default of its own.
            base: base, local: base.with(\.notes, "call back"), remote: base.with(\.priority, 2),
            tie: .local, result: base.with(\.notes, "call back").with(\.priority, 2),
            resolution: fields(local: ["notes"], remote: ["priority"])),
        FieldMergeCase(
            law: "a field the base lacks, equal on both sides, is no tie",
            base: base, local: base.with(\.label, "urgent").with(\.notes, "call back"),
            remote: base.with(\.label, "urgent"),
            result: base.with(\.label, "urgent").with(\.notes, "call back"),
            resolution: fields(local: ["notes"])),
        FieldMergeCase(
            law: "a field the base lacks that only the remote holds takes the remote's, and the edit is kept",
            base: base, local: base.with(\.notes, "call back"), remote: base.with(\.label, "urgent"),
            tie: .local, result: base.with(\.notes, "call back").with(\.label, "urgent"),
            resolution: fields(local: ["notes"], remote: ["label"])),
    ]

    @Test(arguments: cases)
    func mergesAsTheTableSays(_ row: FieldMergeCase) {
        let outcome = FieldMerge.merge(base: row.base, local: row.local, remote: row.remote, tie: row.tie)
        #expect(outcome.result == row.result)
        #expect(outcome.resolution == row.resolution)
    }

    /// An entity that encodes as one value, not an object, has no fields to merge.
    struct Counter: Identifiable, Codable, Sendable, Equatable {
        var id: Int
        init(_ id: Int) { self.id = id }
        init(from decoder: any Decoder) throws { id = try decoder.singleValueContainer().decode(Int.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(id)
        }
    }

    @Test func anEntityThatIsNotAnObjectIsDecidedWholeByTheTie() {
        let outcome = FieldMerge.merge(base: Counter(1), local: Counter(2), remote: Counter(3), tie: .local)
        #expect(outcome.result == Counter(2))
        #expect(outcome.resolution == .tieTookLocal)
    }

    @Test func aMergeOfOnlyTheRemotesChangesReturnsTheRemotesValue() {
        let remote = base.with(\.status, "done")
        let outcome = FieldMerge.merge(base: base, local: base, remote: remote, tie: .local)
        #expect(outcome.result == remote)
    }
}

/// One device of the end-to-end test: a local store and an outbox of its own, beside the
/// shared remote, syncing only when told.
private struct ErrandDevice {
    let directory: TemporaryDirectory
    let local: FileRepository<Errand>
    let outbox: Outbox<Errand>
    let tickets: OfflineFirstRepository<InMemoryRepository<Errand>, FileRepository<Errand>>

    init(_ remote: InMemoryRepository<Errand>, conflicts: ConflictPolicy<Errand>) async throws {
        directory = try TemporaryDirectory()
        local = try await FileRepository<Errand>(fileURL: directory.url.appending(path: "errands.store"))
        outbox = try await Outbox<Errand>(fileURL: directory.url.appending(path: "errands.outbox"))
        tickets = remote.offlineFirst(local: local, outbox: outbox, conflicts: conflicts, automaticSync: nil)
    }
}

@Suite struct FieldMergeSyncTests {
    @Test func twoDevicesEditingDifferentFieldsOfOneEntityKeepBothEdits() async throws {
        let remote = InMemoryRepository<Errand>()
        try await remote.save(base)
        let phone = try await ErrandDevice(remote, conflicts: .mergeFields(tie: .remote))
        let tablet = try await ErrandDevice(remote, conflicts: .mergeFields(tie: .remote))
        try await phone.tickets.sync()
        try await tablet.tickets.sync()

        try await phone.tickets.save(base.with(\.notes, "call the locksmith"))
        try await tablet.tickets.save(base.with(\.status, "waiting"))
        try await phone.tickets.sync()
        try await tablet.tickets.sync()
        try await phone.tickets.sync()

        let both = base.with(\.notes, "call the locksmith").with(\.status, "waiting")
        #expect(try await remote.fetch(id: 1) == both)
        #expect(try await phone.tickets.fetch(id: 1) == both)
        #expect(try await tablet.tickets.fetch(id: 1) == both)
        #expect(try await phone.outbox.changes().isEmpty)
        #expect(try await tablet.outbox.changes().isEmpty)
    }
}
