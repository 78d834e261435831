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

    /// A view model reading from `repository`.
    init(repository: any Repository<Mahsulot, Int>) {
        self.repository = repository
    }

    /// Loads every product. On a failure the products already shown stay on screen, as in
    /// the article, and the error's sentence becomes ``xatoXabari``. A cancelled load
    /// changes nothing but the loading flag.
    func yuklash() async {
        yuklanmoqda = true
        xatoXabari = nil
        defer { yuklanmoqda = false }
        do {
            mahsulotlar = try await repository.fetchAll()
        } catch is CancellationError {
            // The screen went away; there is nobody to tell.
        } catch {
            // The article shows `localizedDescription`; a RepositoryError's description is
            // the sentence written for users (what happened, what to do), on every platform.
            xatoXabari = String(describing: error)
        }
    }
}
