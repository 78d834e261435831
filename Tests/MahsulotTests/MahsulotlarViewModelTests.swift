import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
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
        let gate = Gate()
        let calls = Mutex(0)
        var repository = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        repository.onFetchAll = { [offline] in
            let call = calls.withLock { count in
                count += 1
                return count
            }
            if call == 1 { throw offline }
            await gate.pass()
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
        let gate = Gate()
        var repository = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        repository.onFetchAll = {
            await gate.pass()
            try Task.checkCancellation()
            return Mahsulot.namunalar
        }
        let viewModel = MahsulotlarViewModel(repository: repository)
        let load = Task { await viewModel.yuklash() }
        await gate.waitForArrival()
        load.cancel()
        gate.open()
        await load.value

        #expect(viewModel.xatoXabari == nil)
        #expect(viewModel.mahsulotlar.isEmpty)
        #expect(!viewModel.yuklanmoqda)
    }

    /// A cancelled load whose repository throws its own error (as `RemoteFirstRepository`
    /// rethrows the remote's) is as silent as one that throws `CancellationError`.
    @Test func aCancelledLoadThatThrowsAnotherErrorShowsNoError() async {
        let gate = Gate()
        var repository = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        repository.onFetchAll = { [offline] in
            await gate.pass()
            if Task.isCancelled { throw offline }
            return Mahsulot.namunalar
        }
        let viewModel = MahsulotlarViewModel(repository: repository)
        let load = Task { await viewModel.yuklash() }
        await gate.waitForArrival()
        load.cancel()
        gate.open()
        await load.value

        #expect(viewModel.xatoXabari == nil)
        #expect(!viewModel.yuklanmoqda)
    }

    /// Two loads at once (`.task` and `.refreshable`), the newer answering first: the older,
    /// slower answer (here an error) changes nothing when it comes.
    @Test func anOlderLoadAnsweringLastChangesNothing() async {
        let older = Gate()
        let newer = Gate()
        let calls = Mutex(0)
        var repository = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        repository.onFetchAll = { [offline] in
            let call = calls.withLock { count in
                count += 1
                return count
            }
            if call == 1 {
                await older.pass()
                throw offline
            }
            await newer.pass()
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
        let older = Gate()
        let newer = Gate()
        let calls = Mutex(0)
        var repository = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        repository.onFetchAll = { [oldCopies] in
            let call = calls.withLock { count in
                count += 1
                return count
            }
            if call == 1 {
                await older.pass()
                return oldCopies
            }
            await newer.pass()
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
}
