// Meteorite: the example of the article "Data Repository Layer in iOS MVVM"
// (shared/seeds/001_0eda6a5181bb700b.txt, a Korean translation; the app is
// github.com/hyengchan/MeteoriteRecordApp). Its `DataRepository` (the API when online, the
// database when not) becomes `api.fallback(to: SQLiteRepository<Meteorite>(…))`, and its
// `MeteoriteViewModel` keeps `meteoriteList`, `isLoading`, `alertMessage` and `initFetch()`.
// A run imports a data set the size of NASA's Meteorite Landings list (45,716 records,
// generated from a seed) from the simulated API into SQLite in batches, with a progress bar,
// lists the geolocated meteorites online, then offline from SQLite. `--offline` in a fresh
// workspace has nothing to fall back on and shows the error the view model alerts with (with
// `--data-dir` and the database of an earlier run, SQLite answers instead).
import ExampleSupport

@main enum MeteoriteExample {
    static func main() async {
        await ExampleCommand.run(
            MeteoriteStory.self, example: "Meteorite",
            dataDirectoryHelp: "keep meteorites.sqlite in PATH between runs (default: a temporary directory)"
        )
    }
}
