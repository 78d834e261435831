import ExampleSupport
import Foundation
import Observation
import Repositories

/// The article's view model: it asks for the products and saves them, and neither knows
/// nor cares whether the network is there. Beyond the article, it shows what the syncs
/// decided (``ziddiyatlar``) and the saves the API refused, with its messages by field
/// (``radEtilganlar``, ``maydonXatolari(_:)``). It holds `any SyncingRepository`, so it does not
/// spell the stack's type, and a test hands it a stack over doubles.
@MainActor @Observable final class MahsulotlarViewModel {
    /// The products on screen, by ID.
    private(set) var mahsulotlar: [Mahsulot] = []
    /// Whether a load is running (the spinner).
    private(set) var yuklanmoqda = false
    /// The last intent's error, for the user; `nil` when it succeeded.
    private(set) var xatoXabari: String?
    /// How many saved changes wait to reach the API: the screen's "1 change waiting". A
    /// change the API refused is not counted: it waits for the user, not the network.
    private(set) var kutilayotganlar = 0
    /// The conflicts syncs settled that the user has not seen yet, oldest first: each names
    /// the product, what the device and the API had, what was kept, and why, in one line
    /// (`resolution`: "merged field by field: narxi from this device; tavsifi from the
    /// remote"). ``tasdiqlash(_:)`` marks one seen.
    private(set) var ziddiyatlar: [SyncConflict<Mahsulot>] = []
    /// The saves the API refused, by product ID, each with the API's error: they wait for the
    /// user (a save of the fixed product replaces one), not for the network.
    private(set) var radEtilganlar: [Int: RepositoryError] = [:]

    private let repository: any SyncingRepository<Mahsulot, Int>
    /// Counts the loads started: only the newest may change the state, so an older, slower
    /// answer never overwrites a newer one, nor stops the spinner while the newer runs.
    private var newestLoad = 0

    /// What the screen lists: every product, by ID.
    static let query = Query<Mahsulot>().sorted(by: \.id)

    /// A view model over `repository`.
    init(repository: any SyncingRepository<Mahsulot, Int>) {
        self.repository = repository
    }

    /// Loads the products: the article's four steps. Syncs with the API (its saved changes
    /// go up, the API's products come into the device's file), then shows what the device
    /// holds. When the API cannot be reached (offline, slow, its circuit open), the device's
    /// products are shown without an error; only when it holds none does that error become
    /// ``xatoXabari``. Any other failure of the sync (the device's file could not take the
    /// API's answer, say) is shown beside the products, never passed off as offline.
    ///
    /// Starting clears ``xatoXabari``; on a failure the products already shown stay. A
    /// cancelled load shows nothing. When loads overlap (a `.task` and a `.refreshable`),
    /// only the one started last sets the state.
    func yuklash() async {
        newestLoad += 1
        let load = newestLoad
        yuklanmoqda = true
        xatoXabari = nil
        defer {
            if load == newestLoad { yuklanmoqda = false }
        }
        var syncError: (any Error)?
        do {
            try await repository.sync()
        } catch {
            syncError = error
        }
        if Task.isCancelled || syncError is CancellationError { return }
        do {
            let snapshot = try await repository.snapshot(Self.query)
            guard load == newestLoad else { return }
            show(snapshot)
            if let syncError, snapshot.entities.isEmpty || !Self.isUnreachable(syncError) {
                xatoXabari = syncError.localizedDescription
            }
        } catch let error where error is CancellationError || Task.isCancelled {
            // The screen went away; there is nobody to tell.
        } catch {
            if load == newestLoad { xatoXabari = error.localizedDescription }
        }
    }

    /// Saves `mahsulot` (the article's `saqlash`): on the device at once, online or not, and
    /// to the API with the next sync. Then shows the device's products and the changes
    /// waiting. A save replaces the product's refused change, if it has one: the user's fix
    /// goes out with the next sync.
    ///
    /// - Returns: whether the device took the save; when not, ``xatoXabari`` says why and
    ///   the screen stays as it was.
    @discardableResult
    func saqlash(_ mahsulot: Mahsulot) async -> Bool {
        await amal { try await self.repository.save(mahsulot) }
    }

    /// The API's messages for product `id`'s refused save, by field (`narxi`: "Input should
    /// be greater than 0"), for the form to show beside each field; empty when the API
    /// refused nothing of it.
    func maydonXatolari(_ id: Int) -> [String: [String]] {
        radEtilganlar[id]?.fieldErrors ?? [:]
    }

    /// Marks `ziddiyat` seen (the user read it): the repository forgets it, and the screen no
    /// longer lists it.
    ///
    /// - Returns: whether it was forgotten; when not, ``xatoXabari`` says why and it stays
    ///   listed.
    @discardableResult
    func tasdiqlash(_ ziddiyat: SyncConflict<Mahsulot>) async -> Bool {
        await amal { try await self.repository.acknowledge(conflict: ziddiyat) }
    }

    /// Runs `action` (amal: an action) on the repository, then shows the state after it.
    ///
    /// - Returns: whether `action` succeeded; when not, ``xatoXabari`` says why and the screen
    ///   stays as it was.
    private func amal(_ action: () async throws -> Void) async -> Bool {
        do {
            try await action()
        } catch {
            xatoXabari = error.localizedDescription
            return false
        }
        xatoXabari = nil
        do {
            show(try await repository.snapshot(Self.query))
        } catch {
            xatoXabari = error.localizedDescription
        }
        return true
    }

    /// Whether `error` says the API could not be reached, as opposed to a failure that
    /// showing the device's products would hide.
    private static func isUnreachable(_ error: any Error) -> Bool {
        guard let error = error as? RepositoryError else { return false }
        return [.unavailable, .timedOut, .circuitOpen].contains(error.code)
    }

    private func show(_ snapshot: OfflineSnapshot<Mahsulot>) {
        mahsulotlar = snapshot.entities
        kutilayotganlar = snapshot.pendingIDs.count
        ziddiyatlar = snapshot.conflicts
        radEtilganlar = snapshot.rejections
    }
}
