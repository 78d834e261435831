import Repositories
import RepositoriesTesting
import Testing

@testable import NumberFacts

/// The test store fails a test for each kind of mistake it exists to catch.
@MainActor
@Suite struct TestStoreTests {
    private typealias State = SanagichFeature.State

    private func factFeature() -> SanagichFeature {
        var facts = AnyRepository<NumberFact, Int>.unimplemented("numberFact")
        facts.onFetch = { NumberFact(id: $0, text: "\($0) is a test fact.") }
        return SanagichFeature(numberFact: facts)
    }

    @Test func aWrongExpectedStateFails() async {
        let store = TestStore(initialState: State(), feature: factFeature())
        await withKnownIssue {
            await store.send(.oshirTugmasi) { $0.son = 2 }
        } matching: { issue in
            issue.comments.description.contains("son: 2 → 1")
        }
        // The store carries on from the actual state, so the next step passes.
        await store.send(.oshirTugmasi) { $0.son = 2 }
        await store.finish()
    }

    @Test func aChangeTheTestDidNotExpectFails() async {
        let store = TestStore(initialState: State(), feature: factFeature())
        await withKnownIssue {
            await store.send(.oshirTugmasi)
        }
        await store.finish()
    }

    @Test func anActionLeftUnreceivedFailsAtTheEnd() async {
        let store = TestStore(initialState: State(son: 1), feature: factFeature())
        await store.send(.faktSorash) { $0.yuklanmoqda = true }
        await withKnownIssue {
            await store.finish()
        } matching: { issue in
            issue.comments.description.contains("did not assert: .faktJavob(.success(fact 1))")
        }
    }

    @Test func sendingBeforeReceivingFails() async {
        let store = TestStore(initialState: State(son: 1), feature: factFeature())
        await store.send(.faktSorash) { $0.yuklanmoqda = true }.finish()
        await withKnownIssue {
            await store.send(.oshirTugmasi) {
                $0.son = 2
                $0.yuklanmoqda = false
            }
        } matching: { issue in
            issue.comments.description.contains("Must handle the 1 received action(s)")
        }
        await store.finish()
    }

    @Test func receivingAnotherActionThanExpectedFails() async {
        let store = TestStore(initialState: State(son: 1), feature: factFeature())
        await store.send(.faktSorash) { $0.yuklanmoqda = true }
        await withKnownIssue {
            await store.receive(.faktJavob(.failure(.notFound(id: 1)))) {
                $0.yuklanmoqda = false
                $0.fakt = "1 is a test fact."
            }
        } matching: { issue in
            issue.comments.description.contains("Received .faktJavob(.success(fact 1)), but expected")
        }
        await store.finish()
    }

    @Test func receivingWhenNoEffectRunsFails() async {
        let store = TestStore(
            initialState: State(), feature: SanagichFeature(numberFact: .unimplemented("numberFact")))
        await store.send(.oshirTugmasi) { $0.son = 1 }
        await withKnownIssue {
            await store.receive(.faktSorash)
        } matching: { issue in
            issue.comments.description.contains("no effect is running")
        }
        await store.finish()
    }

    @Test func aStoreLeftUnfinishedFails() async {
        await withKnownIssue {
            let store = TestStore(
                initialState: State(), feature: SanagichFeature(numberFact: .unimplemented("numberFact")))
            await store.send(.oshirTugmasi) { $0.son = 1 }
        } matching: { issue in
            issue.comments.description.contains("The test store was not finished")
        }
    }
}
