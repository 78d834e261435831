import Foundation
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
    /// Counts the fetches started: only the newest may change the state, so an older,
    /// slower answer never overwrites a newer one, nor stops the spinner while the newer runs.
    private var newestFetch = 0

    /// A view model reading from `dataRepo`.
    init(dataRepo: any Repository<Meteorite, Int>) {
        self.dataRepo = dataRepo
    }

    /// The number of rows the table shows.
    var numberOfCells: Int { meteoriteList.count }

    /// Fetches the geolocated meteorites. Starting clears ``alertMessage``. On a failure the
    /// list on screen stays and the error's sentence becomes ``alertMessage``; a cancelled
    /// fetch shows no alert and keeps the list. When fetches overlap (a `.task` and a
    /// `.refreshable`), only the one started last sets the state.
    func initFetch() async {
        newestFetch += 1
        let fetch = newestFetch
        isLoading = true
        alertMessage = nil
        defer {
            if fetch == newestFetch { isLoading = false }
        }
        do {
            let meteorites = try await dataRepo.fetch(.geolocated)
            if fetch == newestFetch { meteoriteList = meteorites }
        } catch let error where error is CancellationError || Task.isCancelled {
            // The screen went away; there is nobody to alert.
        } catch {
            if fetch == newestFetch { alertMessage = error.localizedDescription }
        }
    }
}
