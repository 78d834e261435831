import ExampleSupport
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Synchronization
import Testing

@testable import Mahsulot

/// The view model's state (`mahsulotlar`, `yuklanmoqda`, `xatoXabari`, `kutilayotganlar`,
/// `ziddiyatlar`, `radEtilganlar`) through every path, over the offline-first stack with doubles as the API and the
/// device's store.
@MainActor @Suite struct MahsulotlarViewModelTests {
    private let offline = RepositoryError.unavailable("The test API is offline")
    private let unreadable = RepositoryError.unavailable("The test disk is unreadable")
    private let directory: TemporaryDirectory

    /// The device's older copies: the same products at other prices.
    private let oldCopies = Mahsulot.namunalar.map { mahsulot in
        var copy = mahsulot
        copy.narxi -= 1_000
        return copy
    }

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A view model over `remote` as the API and `local` as the device's store, with a fresh
    /// outbox, syncing only when asked.
    private func viewModel(
        remote: some Repository<Mahsulot, Int>,
        local: some Repository<Mahsulot, Int> = InMemoryRepository<Mahsulot>()
    ) async throws -> MahsulotlarViewModel {
        let outbox = try await Outbox<Mahsulot>(fileURL: directory.file("mahsulotlar.outbox"))
        return MahsulotlarViewModel(
            repository: remote.offlineFirst(
                local: local, outbox: outbox, conflicts: MahsulotRepository.conflicts, automaticSync: nil))
    }

    @Test func yuklanmoqdaIsTrueDuringTheSyncAndFalseAfterIt() async throws {
        let gate = Gate()
        var api = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        api.onFetchAll = {
            await gate.pass()
            return Mahsulot.namunalar
        }
        let viewModel = try await viewModel(remote: api)
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
        #expect(viewModel.kutilayotganlar == 0)
    }

    @Test func aNewLoadClearsThePreviousErrorAsItStarts() async throws {
        let gates = Gates(count: 2)
        let gate = gates[1]
        gates[0].open()  // the first load fails at once
        var api = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        api.onFetchAll = { [offline] in
            if await gates.pass() == 0 { throw offline }
            return Mahsulot.namunalar
        }
        let viewModel = try await viewModel(remote: api)
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

    @Test func eachLoadSyncsWithOneRequestAndShowsTheDevicesCopy() async throws {
        let api = SpyRepository(InMemoryRepository(Mahsulot.namunalar))
        let local = InMemoryRepository<Mahsulot>()
        let viewModel = try await viewModel(remote: api, local: local)
        await viewModel.yuklash()
        await viewModel.yuklash()
        #expect(api.operations == [.fetchAll, .fetchAll], "nothing waits, so a sync only pulls")
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
        #expect(try await local.count() == Mahsulot.namunalar.count)
    }

    /// The article's step 3: the network fails, and the device's copy is shown without an error.
    @Test func anOfflineAPIIsAnsweredByTheDevicesCopyWithoutAnError() async throws {
        let api = FaultInjectingRepository(InMemoryRepository(Mahsulot.namunalar))
        api.failNext(of: .fetchAll, with: offline)
        let viewModel = try await viewModel(remote: api, local: InMemoryRepository(oldCopies))

        await viewModel.yuklash()

        #expect(viewModel.mahsulotlar == oldCopies)
        #expect(viewModel.xatoXabari == nil)
        #expect(!viewModel.yuklanmoqda)
        #expect(api.injectedFaultCount == 1)
    }

    /// The article's step 4: the network fails and nothing was saved, so the user sees the
    /// network's error.
    @Test func anEmptyDeviceLetsTheAPIsErrorThrough() async throws {
        let api = FaultInjectingRepository(InMemoryRepository(Mahsulot.namunalar))
        api.failNext(of: .fetchAll, with: offline)
        let viewModel = try await viewModel(remote: api)

        await viewModel.yuklash()

        #expect(viewModel.mahsulotlar.isEmpty)
        #expect(viewModel.xatoXabari == offline.localizedDescription)
        #expect(viewModel.xatoXabari?.hasPrefix("unavailable: The test API is offline") == true)
    }

    @Test func aDeviceStoreThatCannotBeReadShowsItsErrorAndKeepsTheProductsOnScreen() async throws {
        let api = FaultInjectingRepository(InMemoryRepository(Mahsulot.namunalar))
        let local = FaultInjectingRepository(InMemoryRepository<Mahsulot>())
        let viewModel = try await viewModel(remote: api, local: local)
        await viewModel.yuklash()
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)

        api.failNext(of: .fetchAll, with: offline)
        // Every read from now on: a snapshot stream may still read once after its first answer.
        local.injectRandomFaults(probability: 1, seed: 0, error: unreadable, operations: [.fetchQuery])
        await viewModel.yuklash()

        #expect(viewModel.xatoXabari == unreadable.localizedDescription)
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
        #expect(!viewModel.yuklanmoqda)
        #expect(local.injectedFaultCount >= 1)
    }

    /// The article's catch treated every failure as "offline"; a device that could not take
    /// the API's answer is said so, beside the products it still has.
    @Test func aSyncTheDeviceCouldNotTakeShowsItsErrorBesideTheProducts() async throws {
        let damaged = RepositoryError.corrupted("The test file is damaged", location: "mahsulotlar.journal")
        let local = FaultInjectingRepository(InMemoryRepository(oldCopies))
        local.failNext(of: .saveContentsOf, with: damaged)
        let viewModel = try await viewModel(remote: InMemoryRepository(Mahsulot.namunalar), local: local)

        await viewModel.yuklash()

        #expect(viewModel.mahsulotlar == oldCopies)
        #expect(viewModel.xatoXabari == damaged.localizedDescription)
        #expect(local.injectedFaultCount == 1)
    }

    @Test func saqlashOfflineReturnsAtOnceAndCountsOneChangeWaitingUntilASync() async throws {
        let server = InMemoryRepository(Mahsulot.namunalar)
        let network = NetworkSwitch()
        let viewModel = try await viewModel(
            remote: SwitchedRepository(server, network: network, name: "The test API"))
        await viewModel.yuklash()
        network.goOffline()
        var changed = Mahsulot.namunalar[0]
        changed.narxi = 4_500

        #expect(await viewModel.saqlash(changed))

        #expect(viewModel.mahsulotlar.first == changed)
        #expect(viewModel.kutilayotganlar == 1)
        #expect(viewModel.xatoXabari == nil)
        #expect(try await server.fetch(id: 1) == Mahsulot.namunalar[0])

        network.goOnline()
        await viewModel.yuklash()
        #expect(viewModel.kutilayotganlar == 0)
        #expect(try await server.fetch(id: 1) == changed)
    }

    @Test func aConflictTheSyncSettledIsListedUntilTasdiqlash() async throws {
        let server = InMemoryRepository(Mahsulot.namunalar)
        let network = NetworkSwitch()
        let viewModel = try await viewModel(
            remote: SwitchedRepository(server, network: network, name: "The test API"))
        await viewModel.yuklash()
        network.goOffline()
        var cheaper = Mahsulot.namunalar[2]
        cheaper.narxi = 17_000
        await viewModel.saqlash(cheaper)
        var described = Mahsulot.namunalar[2]
        described.tavsifi = "Devzira guruchi, 5 kg"
        try await server.save(described)
        network.goOnline()

        await viewModel.yuklash()

        let ziddiyat = try #require(viewModel.ziddiyatlar.first)
        #expect(viewModel.ziddiyatlar.count == 1)
        #expect(ziddiyat.entityID == 3)
        #expect(ziddiyat.local == cheaper)
        #expect(ziddiyat.remote == described)
        #expect(ziddiyat.result?.narxi == 17_000)
        #expect(ziddiyat.result?.tavsifi == "Devzira guruchi, 5 kg")
        #expect(
            ziddiyat.resolution.description
                == "merged field by field: narxi from this device; tavsifi from the remote")
        #expect(await viewModel.tasdiqlash(ziddiyat))
        #expect(viewModel.ziddiyatlar.isEmpty)
        #expect(viewModel.xatoXabari == nil)
        await viewModel.yuklash()
        #expect(viewModel.ziddiyatlar.isEmpty, "a conflict marked seen is not listed again")
    }

    @Test func aSaveTheAPIRefusesShowsItsMessagesByFieldAndAFixReplacesIt() async throws {
        let remote = ExampleRemote(
            options: ExampleOptions(), resource: "mahsulotlar", seed: Mahsulot.namunalar,
            validation: Mahsulot.apiValidation)
        let viewModel = try await viewModel(remote: remote.repository)
        await viewModel.yuklash()
        var free = Mahsulot.namunalar[1]
        free.narxi = 0

        #expect(await viewModel.saqlash(free))
        await viewModel.yuklash()

        #expect(viewModel.radEtilganlar.keys.sorted() == [2])
        #expect(viewModel.radEtilganlar[2]?.httpStatus == 422)
        #expect(viewModel.maydonXatolari(2) == ["narxi": ["Input should be greater than 0"]])
        #expect(viewModel.maydonXatolari(1).isEmpty)
        #expect(viewModel.kutilayotganlar == 0, "a refused save waits for the user, not the network")
        #expect(viewModel.xatoXabari == nil)
        #expect(try await remote.server?.fetch(id: 2) == Mahsulot.namunalar[1])

        var fixed = free
        fixed.narxi = 16_000
        #expect(await viewModel.saqlash(fixed))
        #expect(viewModel.radEtilganlar.isEmpty, "the fix replaced the refused save")
        #expect(viewModel.kutilayotganlar == 1)
        await viewModel.yuklash()
        #expect(viewModel.kutilayotganlar == 0)
        #expect(viewModel.maydonXatolari(2).isEmpty)
        #expect(try await remote.server?.fetch(id: 2) == fixed)
    }

    @Test func aSaveTheDeviceRefusesShowsTheErrorAndChangesNothing() async throws {
        let local = FaultInjectingRepository(InMemoryRepository<Mahsulot>())
        let viewModel = try await viewModel(remote: InMemoryRepository(Mahsulot.namunalar), local: local)
        await viewModel.yuklash()
        local.failNext(of: .save, with: unreadable)
        var changed = Mahsulot.namunalar[0]
        changed.narxi = 4_500

        #expect(await viewModel.saqlash(changed) == false)

        #expect(viewModel.xatoXabari == unreadable.localizedDescription)
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
        #expect(viewModel.kutilayotganlar == 0)
        await viewModel.yuklash()
        #expect(viewModel.kutilayotganlar == 0, "the refused save left nothing in the outbox")
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
    }

    @Test func aCancelledLoadShowsNoErrorAndStopsLoading() async throws {
        let viewModel = try await afterACancelledLoad {
            try Task.checkCancellation()
            return Mahsulot.namunalar
        }

        #expect(viewModel.xatoXabari == nil)
        #expect(viewModel.mahsulotlar.isEmpty)
        #expect(!viewModel.yuklanmoqda)
    }

    /// A cancelled load whose API throws its own error (an HTTP client's, say) is as silent
    /// as one that throws `CancellationError`.
    @Test func aCancelledLoadThatThrowsAnotherErrorShowsNoError() async throws {
        let viewModel = try await afterACancelledLoad { [offline] in
            if Task.isCancelled { throw offline }
            return Mahsulot.namunalar
        }

        #expect(viewModel.xatoXabari == nil)
        #expect(!viewModel.yuklanmoqda)
    }

    /// Two loads at once (`.task` and `.refreshable`): their syncs run one after the other,
    /// and their reads of the device's copy overlap. The newer read answers first; the
    /// older, slower answer (here an error) changes nothing when it comes.
    @Test func anOlderLoadAnsweringLastChangesNothing() async throws {
        let held = HeldReads()
        let local = heldLocal(held) { [offline] _ in throw offline }
        let viewModel = try await viewModel(remote: InMemoryRepository(Mahsulot.namunalar), local: local)
        let first = Task { await viewModel.yuklash() }
        await held.gates[0].waitForArrival()
        let second = Task { await viewModel.yuklash() }
        await held.gates[1].waitForArrival()

        held.gates[1].open()
        await second.value
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
        #expect(!viewModel.yuklanmoqda)

        held.gates[0].open()
        await first.value
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
        #expect(viewModel.xatoXabari == nil)
        #expect(!viewModel.yuklanmoqda)
    }

    /// Two loads at once, the older answering first: its products are not shown, and the
    /// spinner keeps turning until the newer load ends.
    @Test func anOlderLoadEndingFirstLeavesTheNewerOneLoading() async throws {
        let held = HeldReads()
        let local = heldLocal(held) { [oldCopies] _ in oldCopies }
        let viewModel = try await viewModel(remote: InMemoryRepository(Mahsulot.namunalar), local: local)
        let first = Task { await viewModel.yuklash() }
        await held.gates[0].waitForArrival()
        let second = Task { await viewModel.yuklash() }
        await held.gates[1].waitForArrival()

        held.gates[0].open()
        await first.value
        #expect(viewModel.yuklanmoqda)
        #expect(viewModel.mahsulotlar.isEmpty)

        held.gates[1].open()
        await second.value
        #expect(viewModel.mahsulotlar == Mahsulot.namunalar)
        #expect(!viewModel.yuklanmoqda)
    }

    /// The device's store, in memory, whose first two reads of a query wait at `held`'s
    /// gates; the first answers with `firstAnswer`, every other read with the store's data.
    private func heldLocal(
        _ held: HeldReads, firstAnswer: @escaping @Sendable (Query<Mahsulot>) async throws -> [Mahsulot]
    ) -> AnyRepository<Mahsulot, Int> {
        let store = InMemoryRepository<Mahsulot>()
        var local = AnyRepository(store)
        local.onFetchQuery = { query in
            if await held.pass() == 0 { return try await firstAnswer(query) }
            return try await store.fetch(query)
        }
        return local
    }

    /// The view model after a load the test cancelled while the API held its sync; the held
    /// call then goes on with `answer`.
    private func afterACancelledLoad(
        answer: @escaping @Sendable () async throws -> [Mahsulot]
    ) async throws -> MahsulotlarViewModel {
        let gate = Gate()
        var api = AnyRepository<Mahsulot, Int>.unimplemented("mahsulotlar")
        api.onFetchAll = {
            await gate.pass()
            return try await answer()
        }
        let viewModel = try await viewModel(remote: api)
        let load = Task { await viewModel.yuklash() }
        await gate.waitForArrival()
        load.cancel()
        gate.open()
        await load.value
        return viewModel
    }
}

/// Holds the first two reads of the device's copy at two gates, and lets every later one
/// through: a snapshot stream may read again after its first answer, and those reads are
/// not the test's.
private final class HeldReads: Sendable {
    let gates = Gates(count: 2)
    private let arrivals = Mutex(0)

    /// Waits at the next gate while there is one; the read's number, from 0.
    func pass() async -> Int {
        let call = arrivals.withLock { count in
            defer { count += 1 }
            return count
        }
        guard call < gates.count else { return call }
        _ = await gates.pass()
        return call
    }
}
