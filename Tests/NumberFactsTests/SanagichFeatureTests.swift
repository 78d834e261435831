import Repositories
import RepositoriesTesting
import Testing

@testable import NumberFacts

/// The counter's reducer, every state change asserted through the test store.
@MainActor
@Suite struct SanagichFeatureTests {
    private typealias State = SanagichFeature.State

    @Test func theButtonsCountUpAndDownWithoutTouchingTheRepository() async {
        let store = TestStore(
            initialState: State(), feature: SanagichFeature(numberFact: .unimplemented("numberFact")))

        await store.send(.oshirTugmasi) { $0.son = 1 }
        await store.send(.oshirTugmasi) { $0.son = 2 }
        await store.send(.kamayirTugmasi) { $0.son = 1 }
        await store.send(.kamayirTugmasi) { $0.son = 0 }
        await store.send(.kamayirTugmasi) { $0.son = -1 }
        await store.finish()
    }

    @Test func changingTheNumberClearsTheOldFactAndError() async {
        let feature = SanagichFeature(numberFact: .unimplemented("numberFact"))
        let showingAFact = TestStore(initialState: State(son: 4, fakt: "4 is four."), feature: feature)
        await showingAFact.send(.oshirTugmasi) {
            $0.son = 5
            $0.fakt = nil
        }
        await showingAFact.finish()

        let showingAnError = TestStore(initialState: State(son: 4, xato: "No fact for 4."), feature: feature)
        await showingAnError.send(.kamayirTugmasi) {
            $0.son = 3
            $0.xato = nil
        }
        await showingAnError.finish()
    }

    @Test func aFactArrivesAndIsShown() async {
        let fact = NumberFact(id: 3, text: "3 is a test fact.")
        var facts = AnyRepository<NumberFact, Int>.unimplemented("numberFact")
        facts.onFetch = { number in number == 3 ? fact : nil }
        let store = TestStore(initialState: State(son: 3), feature: SanagichFeature(numberFact: facts))

        await store.send(.faktSorash) { $0.yuklanmoqda = true }
        await store.receive(.faktJavob(.success(fact))) {
            $0.yuklanmoqda = false
            $0.fakt = "3 is a test fact."
        }
        await store.finish()
    }

    @Test func aFailingRepositoryEndsInAReadableError() async {
        var facts = AnyRepository<NumberFact, Int>.unimplemented("numberFact")
        let failure = RepositoryError.unavailable("The numbers API answered 503")
        facts.onFetch = { _ in throw failure }
        let store = TestStore(initialState: State(son: 8), feature: SanagichFeature(numberFact: facts))

        await store.send(.faktSorash) { $0.yuklanmoqda = true }
        await store.receive(.faktJavob(.failure(failure))) {
            $0.yuklanmoqda = false
            $0.xato =
                "Could not get a fact for 8: The numbers API answered 503. Try again later; the data source may be offline."
        }
        // The counter still works, and the error goes with the number it was about.
        await store.send(.oshirTugmasi) {
            $0.son = 9
            $0.xato = nil
        }
        await store.finish()
    }

    @Test func aNumberWithoutAFactSaysSo() async {
        var facts = AnyRepository<NumberFact, Int>.unimplemented("numberFact")
        facts.onFetch = { _ in nil }
        let store = TestStore(initialState: State(son: -1), feature: SanagichFeature(numberFact: facts))

        await store.send(.faktSorash) { $0.yuklanmoqda = true }
        await store.receive(.faktJavob(.failure(.notFound(id: -1)))) {
            $0.yuklanmoqda = false
            $0.xato = "No fact for -1: the numbers API has none."
        }
        await store.finish()
    }

    @Test func anErrorOfAnotherTypeIsReportedAsTheSourceFailing() async {
        struct Garbled: Error, CustomStringConvertible {
            var description: String { "the answer was not JSON" }
        }
        var facts = AnyRepository<NumberFact, Int>.unimplemented("numberFact")
        facts.onFetch = { _ in throw Garbled() }
        let store = TestStore(initialState: State(son: 2), feature: SanagichFeature(numberFact: facts))

        await store.send(.faktSorash) { $0.yuklanmoqda = true }
        await store.receive(
            .faktJavob(
                .failure(
                    RepositoryError(
                        .unavailable, reason: "The fact source failed: the answer was not JSON",
                        underlying: Garbled())))
        ) {
            $0.yuklanmoqda = false
            $0.xato = "Could not get a fact for 2: The fact source failed: the answer was not JSON."
        }
        await store.finish()
    }

    @Test func aSecondTapCancelsTheRequestInFlight() async {
        let gate = FactGate()
        let store = TestStore(
            initialState: State(son: 5), feature: SanagichFeature(numberFact: gate.repository))

        await store.send(.faktSorash) { $0.yuklanmoqda = true }
        await gate.waitForRequests(1)
        await store.send(.faktSorash)
        await gate.waitForRequests(2)

        // The first request answers late, after the second tap cancelled it: its answer is
        // dropped. Only the second request's answer reaches the state.
        gate.open(0)
        gate.open(1)
        await store.receive(.faktJavob(.success(FactGate.answer(about: 5, request: 1)))) {
            $0.yuklanmoqda = false
            $0.fakt = "5 is the answer to request 1."
        }
        await store.finish()
        #expect(gate.wasCancelled(0) == true)
        #expect(gate.wasCancelled(1) == false)
    }

    @Test func changingTheNumberCancelsTheRequestInFlight() async {
        let gate = FactGate()
        let store = TestStore(
            initialState: State(son: 5), feature: SanagichFeature(numberFact: gate.repository))

        await store.send(.faktSorash) { $0.yuklanmoqda = true }
        await gate.waitForRequests(1)
        await store.send(.oshirTugmasi) {
            $0.son = 6
            $0.yuklanmoqda = false
        }
        gate.open(0)
        await store.finish()  // fails if the fact about 5 arrived
        #expect(gate.wasCancelled(0) == true)
    }
}
