import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

@testable import Mahsulot

/// The view model's state (`mahsulotlar`, `yuklanmoqda`, `xatoXabari`) through every path,
/// with doubles in place of the stack.
@MainActor @Suite struct MahsulotlarViewModelTests {
    private let offline = RepositoryError.unavailable("The test API is offline")
    private let unreadable = RepositoryError.unavailable("The test disk is unreadable")

    /// The local store's older copies: the same products at other prices.
    private let oldCopies = Mahsulot.namunalar.map { mahsulot in
        var copy = mahsulot
        copy.narxi -= 1_000
        return copy
    }

    @Test func yuklanmoqdaIsTrueDuringTheCallAndFalseAfterIt() async {
        let gate = Gate()
        var repository = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        repository.onFetchAll = {
            await gate.pass()
            return Mahsulot.namunalar
        }
        let viewModel = MahsulotlarViewModel(repository: repository)
        #expect(!viewModel.yuklanmoqda)

        let load = Task { await viewModel.yuklash() }
        await gate.waitForArrival()
        #expect(viewModel.yuklanmoqda)
        #expect(viewModel.mahsulotlar.isEmpty)

        gate.open()
        await load.value
        #expect(!viewModel.yuklanmoqda)
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
        #expect(viewModel.xatoXabari == nil)
    }

    @Test func aNewLoadClearsThePreviousErrorAsItStarts() async {
        let gates = Gates(count: 2)
        let gate = gates[1]
        gates[0].open()  // the first load fails at once
        var repository = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        repository.onFetchAll = { [offline] in
            if await gates.pass() == 0 { throw offline }
            return Mahsulot.namunalar
        }
        let viewModel = MahsulotlarViewModel(repository: repository)
        await viewModel.yuklash()
        #expect(viewModel.xatoXabari == offline.localizedDescription)
        #expect(!viewModel.yuklanmoqda)

        let retry = Task { await viewModel.yuklash() }
        await gate.waitForArrival()
        #expect(viewModel.yuklanmoqda)
        #expect(viewModel.xatoXabari == nil)
        gate.open()
        await retry.value
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
    }

    @Test func eachLoadAsksTheRepositoryOnceForEverything() async {
        let spy = SpyRepository(InMemoryRepository(Mahsulot.namunalar))
        let viewModel = MahsulotlarViewModel(repository: spy)
        await viewModel.yuklash()
        await viewModel.yuklash()
        #expect(spy.operations == [.fetchAll, .fetchAll])
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
    }

    @Test func aFailingRemoteIsAnsweredByTheLocalStore() async {
        let remote = FaultInjectingRepository(InMemoryRepository(Mahsulot.namunalar))
        remote.failNext(of: .fetchAll, with: offline)
        let local = SpyRepository(InMemoryRepository(oldCopies))
        let viewModel = MahsulotlarViewModel(repository: remote.fallback(to: local))

        await viewModel.yuklash()

        #expect(viewModel.mahsulotlar == oldCopies)
        #expect(viewModel.xatoXabari == nil)
        #expect(!viewModel.yuklanmoqda)
        #expect(local.operations == [.fetchAll])
        #expect(remote.injectedFaultCount == 1)
    }

    @Test func bothTiersFailingShowsTheRemotesErrorAndKeepsTheProductsOnScreen() async {
        let remote = FaultInjectingRepository(InMemoryRepository(Mahsulot.namunalar))
        let local = FaultInjectingRepository(InMemoryRepository<Mahsulot>())
        let viewModel = MahsulotlarViewModel(repository: remote.fallback(to: local))
        await viewModel.yuklash()
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)

        remote.failNext(of: .fetchAll, with: offline)
        local.failNext(of: .fetchAll, with: unreadable)
        await viewModel.yuklash()

        #expect(viewModel.xatoXabari == offline.localizedDescription)
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
        #expect(!viewModel.yuklanmoqda)
        #expect(local.injectedFaultCount == 1)
    }

    /// The article's step 4: the network fails and nothing was saved, so the user sees the
    /// network's error.
    @Test func anEmptyLocalStoreLetsTheRemotesErrorThrough() async {
        let remote = FaultInjectingRepository(InMemoryRepository(Mahsulot.namunalar))
        remote.failNext(of: .fetchAll, with: offline)
        let viewModel = MahsulotlarViewModel(repository: remote.fallback(to: InMemoryRepository<Mahsulot>()))

        await viewModel.yuklash()

        #expect(viewModel.mahsulotlar.isEmpty)
        #expect(viewModel.xatoXabari == offline.localizedDescription)
        #expect(viewModel.xatoXabari?.hasPrefix("unavailable: The test API is offline") == true)
    }

    @Test func aCancelledLoadShowsNoErrorAndStopsLoading() async {
        let viewModel = await afterACancelledLoad {
            try Task.checkCancellation()
            return Mahsulot.namunalar
        }

        #expect(viewModel.xatoXabari == nil)
        #expect(viewModel.mahsulotlar.isEmpty)
        #expect(!viewModel.yuklanmoqda)
    }

    /// A cancelled load whose repository throws its own error (as `RemoteFirstRepository`
    /// rethrows the remote's) is as silent as one that throws `CancellationError`.
    @Test func aCancelledLoadThatThrowsAnotherErrorShowsNoError() async {
        let viewModel = await afterACancelledLoad { [offline] in
            if Task.isCancelled { throw offline }
            return Mahsulot.namunalar
        }

        #expect(viewModel.xatoXabari == nil)
        #expect(!viewModel.yuklanmoqda)
    }

    /// Two loads at once (`.task` and `.refreshable`), the newer answering first: the older,
    /// slower answer (here an error) changes nothing when it comes.
    @Test func anOlderLoadAnsweringLastChangesNothing() async {
        let gates = Gates(count: 2)
        let (older, newer) = (gates[0], gates[1])
        var repository = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        repository.onFetchAll = { [offline] in
            if await gates.pass() == 0 { throw offline }
            return Mahsulot.namunalar
        }
        let viewModel = MahsulotlarViewModel(repository: repository)
        let first = Task { await viewModel.yuklash() }
        await older.waitForArrival()
        let second = Task { await viewModel.yuklash() }
        await newer.waitForArrival()

        newer.open()
        await second.value
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
        #expect(!viewModel.yuklanmoqda)

        older.open()
        await first.value
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
        #expect(viewModel.xatoXabari == nil)
        #expect(!viewModel.yuklanmoqda)
    }

    /// Two loads at once, the older answering first: its products are not shown, and the
    /// spinner keeps turning until the newer load ends.
    @Test func anOlderLoadEndingFirstLeavesTheNewerOneLoading() async {
        let gates = Gates(count: 2)
        let (older, newer) = (gates[0], gates[1])
        var repository = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        repository.onFetchAll = { [oldCopies] in
            if await gates.pass() == 0 { return oldCopies }
            return Mahsulot.namunalar
        }
        let viewModel = MahsulotlarViewModel(repository: repository)
        let first = Task { await viewModel.yuklash() }
        await older.waitForArrival()
        let second = Task { await viewModel.yuklash() }
        await newer.waitForArrival()

        older.open()
        await first.value
        #expect(viewModel.yuklanmoqda)
        #expect(viewModel.mahsulotlar.isEmpty)

        newer.open()
        await second.value
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
        #expect(!viewModel.yuklanmoqda)
    }

    /// The view model after a load the test cancelled while the repository held it; the
    /// held call then goes on with `answer`.
    private func afterACancelledLoad(
        answer: @escaping @Sendable () async throws -> [Mahsulot]
    ) async -> MahsulotlarViewModel {
        let gate = Gate()
        var repository = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        repository.onFetchAll = {
            await gate.pass()
            return try await answer()
        }
        let viewModel = MahsulotlarViewModel(repository: repository)
        let load = Task { await viewModel.yuklash() }
        await gate.waitForArrival()
        load.cancel()
        gate.open()
        await load.value
        return viewModel
    }
}
