import Repositories
import RepositoriesTesting
import Testing

@testable import NumberFacts

/// The test store fails a test for each kind of mistake it exists to catch. Each test keeps
/// the failure it expects (`capturingTestFailures`), so a run prints nothing while they come.
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
        let failures = await capturingTestFailures {
            await store.send(.oshirTugmasi) { $0.son = 2 }
        }
        #expect(failures.count == 1 && failures[0].message.contains("son: 2 → 1"), "\(failures)")
        // The store carries on from the actual state, so the next step passes.
        await store.send(.oshirTugmasi) { $0.son = 2 }
        await store.finish()
    }

    @Test func aChangeTheTestDidNotExpectFails() async {
        let store = TestStore(initialState: State(), feature: factFeature())
        let failures = await capturingTestFailures {
            await store.send(.oshirTugmasi)
        }
        #expect(failures.count == 1 && failures[0].message.contains("son: 0 → 1"), "\(failures)")
        await store.finish()
    }

    @Test func anActionLeftUnreceivedFailsAtTheEnd() async {
        let store = TestStore(initialState: State(son: 1), feature: factFeature())
        await store.send(.faktSorash) { $0.yuklanmoqda = true }
        let failures = await capturingTestFailures {
            await store.finish()
        }
        #expect(
            failures.count == 1
                && failures[0].message.contains("did not assert: .faktJavob(.success(fact 1))"),
            "\(failures)")
    }

    @Test func sendingBeforeReceivingFails() async {
        let store = TestStore(initialState: State(son: 1), feature: factFeature())
        await store.send(.faktSorash) { $0.yuklanmoqda = true }.finish()
        let failures = await capturingTestFailures {
            await store.send(.oshirTugmasi) {
                $0.son = 2
                $0.yuklanmoqda = false
            }
        }
        #expect(
            failures.count == 1 && failures[0].message.contains("Must handle the 1 received action(s)"),
            "\(failures)")
        await store.finish()
    }

    @Test func receivingAnotherActionThanExpectedFails() async {
        let store = TestStore(initialState: State(son: 1), feature: factFeature())
        await store.send(.faktSorash) { $0.yuklanmoqda = true }
        let failures = await capturingTestFailures {
            await store.receive(.faktJavob(.failure(.notFound(id: 1)))) {
                $0.yuklanmoqda = false
                $0.fakt = "1 is a test fact."
            }
        }
        #expect(
            failures.count == 1
                && failures[0].message.contains("Received .faktJavob(.success(fact 1)), but expected"),
            "\(failures)")
        await store.finish()
    }

    @Test func receivingWhenNoEffectRunsFails() async {
        let store = TestStore(
            initialState: State(), feature: SanagichFeature(numberFact: .unimplemented("numberFact")))
        await store.send(.oshirTugmasi) { $0.son = 1 }
        let failures = await capturingTestFailures {
            await store.receive(.faktSorash)
        }
        #expect(failures.count == 1 && failures[0].message.contains("no effect is running"), "\(failures)")
        await store.finish()
    }

    @Test func aStoreLeftUnfinishedFails() async {
        let failures = await capturingTestFailures {
            let store = TestStore(
                initialState: State(), feature: SanagichFeature(numberFact: .unimplemented("numberFact")))
            await store.send(.oshirTugmasi) { $0.son = 1 }
        }
        #expect(
            failures.count == 1 && failures[0].message.contains("The test store was not finished"),
            "\(failures)")
    }
}
