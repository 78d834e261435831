import Foundation
import Observation
import Repositories

/// The article's view model: it asks for the products and neither knows nor cares whether
/// they came from the network or the local store. It depends on the protocol only, so a
/// test hands it a double.
@MainActor @Observable final class MahsulotlarViewModel {
    /// The products on screen.
    private(set) var mahsulotlar: [Mahsulot] = []
    /// Whether a load is running (the spinner).
    private(set) var yuklanmoqda = false
    /// The last load's error, for the user; `nil` when it succeeded.
    private(set) var xatoXabari: String?

    private let repository: any Repository<Mahsulot, Int>
    /// Counts the loads started: only the newest may change the state, so an older, slower
    /// answer never overwrites a newer one, nor stops the spinner while the newer runs.
    private var newestLoad = 0

    /// A view model reading from `repository`.
    init(repository: any Repository<Mahsulot, Int>) {
        self.repository = repository
    }

    /// Loads every product. Starting clears ``xatoXabari``. On a failure the products
    /// already shown stay on screen, as in the article, and the error's sentence becomes
    /// ``xatoXabari``; a cancelled load shows no error and keeps the products. When loads
    /// overlap (a `.task` and a `.refreshable`), only the one started last sets the state.
    func yuklash() async {
        newestLoad += 1
        let load = newestLoad
        yuklanmoqda = true
        xatoXabari = nil
        defer {
            if load == newestLoad { yuklanmoqda = false }
        }
        do {
            let products = try await repository.fetchAll()
            if load == newestLoad { mahsulotlar = products }
        } catch let error where error is CancellationError || Task.isCancelled {
            // The screen went away; there is nobody to tell.
        } catch {
            if load == newestLoad { xatoXabari = error.localizedDescription }
        }
    }
}
