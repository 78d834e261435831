import Observation
import Repositories

/// The article's `MeteoriteViewModel`: it asks its data repository for the geolocated
/// meteorites and exposes the list, the loading flag and an alert message. Observation
/// replaces the article's `didSet` closures; the repository is the protocol, so tests hand
/// it a double.
@MainActor @Observable final class MeteoriteViewModel {
    /// The meteorites on screen: those with a location.
    private(set) var meteoriteList: [Meteorite] = []
    /// Whether a fetch is running.
    private(set) var isLoading = false
    /// The last fetch's error, for an alert; `nil` when it succeeded.
    private(set) var alertMessage: String?

    private let dataRepo: any Repository<Meteorite, Int>

    /// A view model reading from `dataRepo`.
    init(dataRepo: any Repository<Meteorite, Int>) {
        self.dataRepo = dataRepo
    }

    /// The number of rows the table shows.
    var numberOfCells: Int { meteoriteList.count }

    /// Fetches the geolocated meteorites. On a failure the list on screen stays and the
    /// error's sentence becomes ``alertMessage``; a cancelled fetch changes nothing but the
    /// loading flag.
    func initFetch() async {
        isLoading = true
        alertMessage = nil
        defer { isLoading = false }
        do {
            meteoriteList = try await dataRepo.fetch(.geolocated)
        } catch is CancellationError {
            // The screen went away; there is nobody to alert.
        } catch {
            // A RepositoryError's description is the sentence written for users.
            alertMessage = String(describing: error)
        }
    }
}
