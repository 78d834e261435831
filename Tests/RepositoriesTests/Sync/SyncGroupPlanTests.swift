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

    static func change(
        _ entity: SyncDependency, at order: UInt64, rejected: Bool = false, needs: [SyncDependency] = []
    ) -> GroupedChange {
        GroupedChange(entity: entity, order: order, rejected: rejected, dependencies: needs)
    }

    @Test func aChangeWaitsForAnEarlierPendingChangeItDependsOn() {
        let changes = [
            Self.change(Self.inspection(1), at: 1),
            Self.change(Self.finding(10), at: 2, needs: [Self.inspection(1)]),
            // Its inspection has no pending change: the remote has it.
            Self.change(Self.finding(11), at: 3, needs: [Self.inspection(2)]),
        ]
        let blockers = SyncGroupPlan.blockers(in: changes)
        #expect(blockers.mapValues(\.entity) == [Self.finding(10): Self.inspection(1)])
    }

    @Test func aLaterChangeOfTheDependencyHoldsNothingBack() {
        // The finding was saved on an inspection the remote has; the app then deleted the
        // inspection: the finding goes first, as the app made them.
        let changes = [
            Self.change(Self.finding(10), at: 1, needs: [Self.inspection(1)]),
            Self.change(Self.inspection(1), at: 2),
        ]
        #expect(SyncGroupPlan.blockers(in: changes).isEmpty)
        #expect(
            SyncGroupPlan.typeOrder(changes) == [
                ObjectIdentifier(Finding.self), ObjectIdentifier(Inspection.self),
            ])
    }

    @Test func aChangeWaitsForTheEarliestOfItsBlockers() {
        let changes = [
            Self.change(Self.photo(5), at: 1),
            Self.change(Self.inspection(1), at: 2),
            Self.change(Self.finding(10), at: 3, needs: [Self.inspection(1), Self.photo(5)]),
        ]
        #expect(SyncGroupPlan.blockers(in: changes)[Self.finding(10)]?.entity == Self.photo(5))
    }

    @Test func aChangeNeverWaitsForItself() {
        let changes = [Self.change(Self.finding(10), at: 1, needs: [Self.finding(10)])]
        #expect(SyncGroupPlan.blockers(in: changes).isEmpty)
        #expect(
            SyncGroupPlan.ready(changes, of: ObjectIdentifier(Finding.self), excluding: []) == [
                Self.finding(10)
            ])
    }

    @Test func typesGoBeforeTheTypesThatWaitForThemWhateverTheirFirstChange() {
        // A finding made first, on an inspection the remote has; then a new inspection and a
        // finding on it: the inspections still go first, since a finding waits for one.
        let changes = [
            Self.change(Self.finding(9), at: 1, needs: [Self.inspection(7)]),
            Self.change(Self.inspection(1), at: 2),
            Self.change(Self.finding(10), at: 3, needs: [Self.inspection(1)]),
            Self.change(Self.photo(5), at: 4, needs: [Self.finding(10)]),
        ]
        #expect(
            SyncGroupPlan.typeOrder(changes) == [
                ObjectIdentifier(Inspection.self), ObjectIdentifier(Finding.self),
                ObjectIdentifier(Photo.self),
            ])
    }

    @Test func typesThatWaitForNothingGoInTheOrderOfTheirFirstChange() {
        let changes = [
            Self.change(Self.photo(5), at: 2),
            Self.change(Self.inspection(1), at: 3),
            Self.change(Self.finding(10), at: 1),
        ]
        #expect(
            SyncGroupPlan.typeOrder(changes) == [
                ObjectIdentifier(Finding.self), ObjectIdentifier(Photo.self),
                ObjectIdentifier(Inspection.self),
            ])
    }

    @Test func aCycleOfTypesIsBrokenByTheEarliestChange() {
        let changes = [
            Self.change(Self.inspection(1), at: 1),
            Self.change(Self.finding(10), at: 2, needs: [Self.inspection(1)]),
            Self.change(Self.inspection(2), at: 3, needs: [Self.finding(10)]),
        ]
        #expect(
            SyncGroupPlan.typeOrder(changes) == [
                ObjectIdentifier(Inspection.self), ObjectIdentifier(Finding.self),
            ])
        // The first round sends inspection 1 alone; inspection 2 waits for finding 10.
        #expect(
            SyncGroupPlan.ready(changes, of: ObjectIdentifier(Inspection.self), excluding: []) == [
                Self.inspection(1)
            ])
    }

    @Test func readyLeavesOutRejectedWaitingAndTriedChanges() {
        let changes = [
            Self.change(Self.inspection(1), at: 1, rejected: true),
            Self.change(Self.inspection(2), at: 2),
            Self.change(Self.inspection(3), at: 3),
            Self.change(Self.finding(10), at: 4, needs: [Self.inspection(1)]),
            Self.change(Self.finding(11), at: 5, needs: [Self.inspection(2)]),
            Self.change(Self.finding(12), at: 6, needs: [Self.inspection(9)]),
        ]
        #expect(
            SyncGroupPlan.ready(
                changes, of: ObjectIdentifier(Inspection.self), excluding: [Self.inspection(3)])
                == [Self.inspection(2)])
        #expect(
            SyncGroupPlan.ready(changes, of: ObjectIdentifier(Finding.self), excluding: []) == [
                Self.finding(12)
            ])
    }

    @Test func aHeldChangeSaysWhichChangeItWaitsForAndWhatToDo() {
        let refused = SyncGroupPlan.heldBack(by: Self.change(Self.inspection(1), at: 1, rejected: true))
        #expect(refused.code == .heldBack)
        #expect(refused.reason.contains("Inspection 1"))
        #expect(refused.reason.contains("refused"))
        #expect(refused.recovery?.contains("retry(id:)") == true)
        let unsent = SyncGroupPlan.heldBack(by: Self.change(Self.inspection(2), at: 1))
        #expect(unsent.reason.contains("has not reached the server"))
    }

    @Test func twoTypesOfOneNameInDifferentScopesDiffer() {
        enum Other { struct Inspection: Identifiable { var id: Int } }
        #expect(SyncDependency(Other.Inspection.self, id: 1) != Self.inspection(1))
        #expect(Self.inspection(1).description == "Inspection 1")
    }
}
