import Observation
import Repositories
import RepositoriesTesting
import Synchronization
import Testing

@testable import NumberFacts

/// The store a view reads: it applies actions, runs their effects, reports every change,
/// and is observable.
@MainActor
@Suite struct StoreTests {
    @Test func aFactRequestRunsItsEffectAndTheAnswerReachesTheState() async {
        var facts = AnyRepository<NumberFact, Int>.unimplemented("numberFact")
        facts.onFetch = { NumberFact(id: $0, text: "\($0) is a test fact.") }
        var changes: [String] = []
        let store = Store(
            initialState: SanagichFeature.State(son: 2), feature: SanagichFeature(numberFact: facts)
        ) { change in
            changes.append("\(change.isFromEffect ? "recv" : "send") \(change.action)")
        }

        await store.send(.faktSorash).finish()

        #expect(store.state == SanagichFeature.State(son: 2, fakt: "2 is a test fact."))
        #expect(changes == ["send .faktSorash", "recv .faktJavob(.success(fact 2))"])
        #expect(store.runningEffectCount == 0)
    }

    @Test func aViewObservingTheStateIsToldOfAChange() {
        let store = Store(
            initialState: SanagichFeature.State(), feature: SanagichFeature(numberFact: .unimplemented()))
        let changed = Mutex(false)
        withObservationTracking {
            _ = store.state.son
        } onChange: {
            changed.withLock { $0 = true }
        }

        store.send(.oshirTugmasi)

        #expect(changed.withLock { $0 })
        #expect(store.state.son == 1)
    }

    @Test func cancellingAnEffectDropsTheActionsItSendsAfterwards() async {
        let gate = FactGate()
        var changes: [String] = []
        let store = Store(
            initialState: SanagichFeature.State(son: 1), feature: SanagichFeature(numberFact: gate.repository)
        ) { change in
            changes.append("\(change.action)")
        }

        let first = store.send(.faktSorash)
        await gate.waitForRequests(1)
        store.send(.kamayirTugmasi)
        gate.open(0)
        await first.finish()

        #expect(changes == [".faktSorash", ".kamayirTugmasi"])
        #expect(store.state == SanagichFeature.State(son: 0))
    }
}
