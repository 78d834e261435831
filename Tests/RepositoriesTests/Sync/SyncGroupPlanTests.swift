import Foundation
import Testing

@testable import Repositories

/// The group push's plan from tables: which changes wait for which, the order the types go
/// in, and which changes go now. No store, no remote.
@Suite struct SyncGroupPlanTests {
    struct Inspection: Identifiable { var id: Int }
    struct Finding: Identifiable { var id: Int }
    struct Photo: Identifiable { var id: Int }

    static func inspection(_ id: Int) -> SyncDependency { SyncDependency(Inspection.self, id: id) }
    static func finding(_ id: Int) -> SyncDependency { SyncDependency(Finding.self, id: id) }
    static func photo(_ id: Int) -> SyncDependency { SyncDependency(Photo.self, id: id) }
    static let everyType: Set<ObjectIdentifier> = [
        ObjectIdentifier(Inspection.self), ObjectIdentifier(Finding.self), ObjectIdentifier(Photo.self),
    ]

    /// A pending change first made at `first` (`nil`: before its outbox joined the group),
    /// now at revision `now` (by default `first`).
    static func change(
        _ entity: SyncDependency, first: UInt64?, now: UInt64? = nil, rejected: Bool = false,
        needs: [SyncDependency] = []
    ) -> GroupedChange {
        GroupedChange(
            entity: entity, revision: now ?? first ?? 0, firstRevision: first, rejected: rejected,
            dependencies: needs)
    }

    static func waiting(_ changes: [GroupedChange], members: Set<ObjectIdentifier> = everyType)
        -> [SyncDependency: SyncDependency]
    {
        SyncGroupPlan.blockers(in: changes, members: members).mapValues(\.entity)
    }

    static func ready(
        _ changes: [GroupedChange], of type: Any.Type, upTo latest: UInt64 = .max,
        tried: Set<GroupedChange.Version> = []
    ) -> [SyncDependency: UInt64] {
        SyncGroupPlan.ready(
            changes, of: ObjectIdentifier(type), members: everyType, upTo: latest, excluding: tried)
    }

    @Test func aChangeWaitsForAnEarlierPendingChangeItDependsOn() {
        let changes = [
            Self.change(Self.inspection(1), first: 1),
            Self.change(Self.finding(10), first: 2, needs: [Self.inspection(1)]),
            // Its inspection has no pending change: the remote has it.
            Self.change(Self.finding(11), first: 3, needs: [Self.inspection(2)]),
        ]
        #expect(Self.waiting(changes) == [Self.finding(10): Self.inspection(1)])
    }

    @Test func anInspectionEditedAfterItsFindingsStillHoldsThemBack() {
        // Created at 1, a finding at 2, the inspection edited at 3: its change began at 1.
        let changes = [
            Self.change(Self.inspection(1), first: 1, now: 3),
            Self.change(Self.finding(10), first: 2, needs: [Self.inspection(1)]),
        ]
        #expect(Self.waiting(changes) == [Self.finding(10): Self.inspection(1)])
    }

    @Test func aLaterChangeOfTheDependencyHoldsNothingBack() {
        // The finding was saved on an inspection the remote has; the app then deleted the
        // inspection: the finding goes first, as the app made them.
        let changes = [
            Self.change(Self.finding(10), first: 1, needs: [Self.inspection(1)]),
            Self.change(Self.inspection(1), first: 2),
        ]
        #expect(Self.waiting(changes).isEmpty)
        #expect(
            SyncGroupPlan.typeOrder(changes, members: Self.everyType) == [
                ObjectIdentifier(Finding.self), ObjectIdentifier(Inspection.self),
            ])
    }

    @Test func aFindingMovedToAnInspectionCreatedAfterItsFirstVersionWaitsForIt() {
        // The finding was edited at 10 (on an inspection the remote has), inspection 2
        // created at 11, and the finding moved to it at 12: its version at 12 needs it.
        let changes = [
            Self.change(Self.finding(10), first: 10, now: 12, needs: [Self.inspection(2)]),
            Self.change(Self.inspection(2), first: 11),
        ]
        #expect(Self.waiting(changes) == [Self.finding(10): Self.inspection(2)])
        #expect(
            SyncGroupPlan.typeOrder(changes, members: Self.everyType) == [
                ObjectIdentifier(Inspection.self), ObjectIdentifier(Finding.self),
            ])
        #expect(Self.ready(changes, of: Finding.self).isEmpty)
    }

    @Test func aChangeMadeBeforeItsOutboxJoinedTheGroupComesBeforeEveryOther() {
        // The inspection's change was made before the group (its revision from its table's
        // own counter, 90); the finding after, in the group, at 95 (the group's counter starts
        // above every table's).
        let changes = [
            Self.change(Self.inspection(1), first: nil, now: 90),
            Self.change(Self.finding(10), first: 95, needs: [Self.inspection(1)]),
        ]
        #expect(Self.waiting(changes) == [Self.finding(10): Self.inspection(1)])
        // Two changes from before the group: the one that depends on the other waits.
        let old = [
            Self.change(Self.inspection(1), first: nil, now: 90),
            Self.change(Self.finding(10), first: nil, now: 3, needs: [Self.inspection(1)]),
        ]
        #expect(Self.waiting(old) == [Self.finding(10): Self.inspection(1)])
    }

    @Test func aChangeWaitsForAnEntityOfATypeWithNoMemberInThisProcess() {
        let changes = [Self.change(Self.finding(10), first: 2, needs: [Self.inspection(1)])]
        let members: Set = [ObjectIdentifier(Finding.self)]
        #expect(Self.waiting(changes, members: members) == [Self.finding(10): Self.inspection(1)])
        let error = SyncGroupPlan.heldBack(
            Self.finding(10), by: SyncGroupPlan.blockers(in: changes, members: members))
        #expect(error?.reason.contains("no repository of Inspection in this process") == true)
        #expect(error?.recovery?.contains("offlineFirst(local:group:)") == true)
    }

    @Test func aChangeWaitsForTheEarliestOfItsBlockers() {
        let changes = [
            Self.change(Self.photo(5), first: 1),
            Self.change(Self.inspection(1), first: 2),
            Self.change(Self.finding(10), first: 3, needs: [Self.inspection(1), Self.photo(5)]),
        ]
        #expect(Self.waiting(changes)[Self.finding(10)] == Self.photo(5))
    }

    @Test func aChangeNeverWaitsForItself() {
        let changes = [Self.change(Self.finding(10), first: 1, needs: [Self.finding(10)])]
        #expect(Self.waiting(changes).isEmpty)
        #expect(Self.ready(changes, of: Finding.self) == [Self.finding(10): 1])
    }

    @Test func changesWaitingForEachOtherInACircleLetTheFirstMadeGo() {
        let changes = [
            Self.change(Self.inspection(1), first: 1, now: 4, needs: [Self.finding(10)]),
            Self.change(Self.finding(10), first: 2, needs: [Self.inspection(1)]),
        ]
        #expect(Self.waiting(changes) == [Self.finding(10): Self.inspection(1)])
        #expect(Self.ready(changes, of: Inspection.self) == [Self.inspection(1): 4])
    }

    @Test func aChangeFreedFromACircleStillWaitsForWhatIsOutsideIt() {
        // Inspection 1 edited to name finding 10 (which names it) and photo 5, made after both.
        let changes = [
            Self.change(Self.inspection(1), first: 1, now: 4, needs: [Self.finding(10), Self.photo(5)]),
            Self.change(Self.finding(10), first: 2, needs: [Self.inspection(1)]),
            Self.change(Self.photo(5), first: 3),
        ]
        #expect(
            Self.waiting(changes) == [
                Self.inspection(1): Self.photo(5), Self.finding(10): Self.inspection(1),
            ])
        #expect(Self.ready(changes, of: Inspection.self).isEmpty)
        #expect(Self.ready(changes, of: Photo.self) == [Self.photo(5): 3])
    }

    @Test func aRefusedChangeInTheMiddleOfAChainIsTheOneItsDependantsAreToldAbout() {
        let changes = [
            Self.change(Self.inspection(1), first: 1),
            Self.change(Self.finding(10), first: 2, rejected: true, needs: [Self.inspection(1)]),
            Self.change(Self.photo(5), first: 3, needs: [Self.finding(10)]),
        ]
        let error = SyncGroupPlan.heldBack(
            Self.photo(5), by: SyncGroupPlan.blockers(in: changes, members: Self.everyType))
        #expect(error?.reason == "Waits for the change to Finding 10, which the server refused")
    }

    @Test func typesGoBeforeTheTypesThatWaitForThemWhateverTheirFirstChange() {
        // A finding made first, on an inspection the remote has; then a new inspection and a
        // finding on it: the inspections still go first, since a finding waits for one.
        let changes = [
            Self.change(Self.finding(9), first: 1, needs: [Self.inspection(7)]),
            Self.change(Self.inspection(1), first: 2),
            Self.change(Self.finding(10), first: 3, needs: [Self.inspection(1)]),
            Self.change(Self.photo(5), first: 4, needs: [Self.finding(10)]),
        ]
        #expect(
            SyncGroupPlan.typeOrder(changes, members: Self.everyType) == [
                ObjectIdentifier(Inspection.self), ObjectIdentifier(Finding.self),
                ObjectIdentifier(Photo.self),
            ])
    }

    @Test func typesThatWaitForNothingGoInTheOrderOfTheirFirstChange() {
        let changes = [
            Self.change(Self.photo(5), first: 2),
            Self.change(Self.inspection(1), first: 3),
            Self.change(Self.finding(10), first: 1),
        ]
        #expect(
            SyncGroupPlan.typeOrder(changes, members: Self.everyType) == [
                ObjectIdentifier(Finding.self), ObjectIdentifier(Photo.self),
                ObjectIdentifier(Inspection.self),
            ])
    }

    @Test func readyLeavesOutRejectedWaitingTriedAndLaterChanges() {
        let changes = [
            Self.change(Self.inspection(1), first: 1, rejected: true),
            Self.change(Self.inspection(2), first: 2),
            Self.change(Self.inspection(3), first: 3),
            Self.change(Self.inspection(4), first: 7),
            Self.change(Self.finding(10), first: 4, needs: [Self.inspection(1)]),
            Self.change(Self.finding(11), first: 5, needs: [Self.inspection(2)]),
            Self.change(Self.finding(12), first: 6, needs: [Self.inspection(9)]),
        ]
        // Inspection 4 was made after the sync began (at 6); inspection 3 was tried.
        let tried: Set = [GroupedChange.Version(entity: Self.inspection(3), revision: 3)]
        #expect(Self.ready(changes, of: Inspection.self, upTo: 6, tried: tried) == [Self.inspection(2): 2])
        #expect(Self.ready(changes, of: Finding.self, upTo: 6) == [Self.finding(12): 6])
        // Inspection 3 replaced since it was tried (after the sync began): its new version waits
        // for the next sync.
        var replaced = changes
        replaced[2].revision = 8
        #expect(Self.ready(replaced, of: Inspection.self, upTo: 6, tried: tried)[Self.inspection(3)] == nil)
        #expect(Self.ready(replaced, of: Inspection.self, upTo: 8, tried: tried)[Self.inspection(3)] == 8)
    }

    @Test func aHeldChangeSaysWhichChangeItWaitsForThroughWhichAndWhatToDo() {
        let refused = [
            Self.change(Self.inspection(1), first: 1, rejected: true),
            Self.change(Self.finding(10), first: 2, needs: [Self.inspection(1)]),
            Self.change(Self.photo(5), first: 3, needs: [Self.finding(10)]),
        ]
        let blockers = SyncGroupPlan.blockers(in: refused, members: Self.everyType)
        let finding = SyncGroupPlan.heldBack(Self.finding(10), by: blockers)
        #expect(finding?.code == .heldBack)
        #expect(finding?.reason == "Waits for the change to Inspection 1, which the server refused")
        #expect(finding?.recovery?.contains("retry(id:)") == true)
        let photo = SyncGroupPlan.heldBack(Self.photo(5), by: blockers)
        #expect(
            photo?.reason
                == "Waits for the change to Inspection 1 (through Finding 10), which the server refused")
        #expect(SyncGroupPlan.heldBack(Self.inspection(1), by: blockers) == nil)
        let unsent = SyncGroupPlan.heldBack(
            Self.finding(10),
            by: SyncGroupPlan.blockers(
                in: [refused[1], Self.change(Self.inspection(1), first: 1)], members: Self.everyType))
        #expect(unsent?.reason.contains("has not reached the server") == true)
    }

    @Test func twoTypesOfOneNameInDifferentScopesDiffer() {
        enum Other { struct Inspection: Identifiable { var id: Int } }
        #expect(SyncDependency(Other.Inspection.self, id: 1) != Self.inspection(1))
        #expect(Self.inspection(1).description == "Inspection 1")
    }
}
