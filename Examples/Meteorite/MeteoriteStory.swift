import ExampleSupport
import Foundation
import Repositories
import RepositoriesSQLite

/// The run, step by step: generates the data set into the simulated API (not under
/// `--api`, whose server has its own), imports it into SQLite, then drives the view model
/// online and offline, printing counts and timings.
@MainActor struct MeteoriteStory: ExampleStory {
    /// The database's file name inside the workspace.
    static let fileName = "meteorites.sqlite"

    private let options: ExampleOptions
    /// The simulated API (or `--api URL`), behind its network switch.
    let remote: ExampleRemote<Meteorite>
    /// The article's database.
    let database: SQLiteRepository<Meteorite>
    /// What the database failed to do behind the API, checked after each fetch.
    let mirrorFailures = MirrorFailures()
    /// The article's data repository: the API first, the database behind it.
    let dataRepo:
        RemoteFirstRepository<
            SwitchedRepository<AnyRepository<Meteorite, Int>>, SQLiteRepository<Meteorite>
        >
    /// How long generating the simulated API's data set took; `nil` under `--api`.
    private let generation: Duration?

    /// The story as `swift run Meteorite` tells it: a NASA-sized generated data set.
    init(options: ExampleOptions, workspace: ExampleWorkspace) async throws {
        try await self.init(
            options: options, workspace: workspace, dataSet: { MeteoriteGenerator().generate() })
    }

    /// Opens the database and the stack over the simulated API, filled with `dataSet()`
    /// (NASA-sized by default), or over `--api URL`, which does not call `dataSet`.
    init(
        options: ExampleOptions, workspace: ExampleWorkspace, dataSet: () -> [Meteorite]
    ) async throws {
        self.options = options
        var meteorites: [Meteorite] = []
        if options.apiURL == nil {
            let (generated, generation) = await Console.timed { dataSet() }
            meteorites = generated
            self.generation = generation
        } else {
            generation = nil
        }
        remote = ExampleRemote(options: options, resource: "meteorites", seed: meteorites)
        database = try await SQLiteRepository<Meteorite>(fileURL: workspace.file(Self.fileName))
        dataRepo = DataRepository.make(
            api: remote.repository, database: database, onTierFailure: mirrorFailures.record)
    }

    /// Closes the database.
    func close() async throws {
        try await database.close()
    }

    /// Prints the whole story.
    func tell() async throws {
        print("Meteorite: NASA's meteorite landings from \(remote.origin), kept in \(Self.fileName)")
        if let server = remote.server, let generation {
            print(
                "The simulated API holds \(Console.grouped(try await server.count())) meteorites "
                    + "(generated in \(Console.format(generation))).")
        }
        let viewModel = MeteoriteViewModel(dataRepo: dataRepo)
        if options.offline {
            try await fetchOfflineFromTheStart(viewModel)
            return
        }
        try await importFromTheAPI()
        try await fetchOnline(viewModel)
        try await fetchOffline(viewModel)
    }

    /// Reads every meteorite from the API and writes it to SQLite in batches.
    ///
    /// This writes into `database` directly, behind `dataRepo`'s back, on purpose: to show
    /// the article's `saveToDB` as batched transactions with a progress bar.
    /// `dataRepo.fetchAll()` alone would mirror everything too, but in one batch, silently.
    func importFromTheAPI() async throws {
        Console.heading("Import: the API into \(Self.fileName)")
        let (meteorites, fetching) = try await Console.timed { try await remote.repository.fetchAll() }
        print(
            "Fetched \(Console.grouped(meteorites.count)) meteorites from the API in \(Console.format(fetching))."
        )
        let importer = MeteoriteImport(database: database)
        var bar = ProgressBar(label: "Importing", total: meteorites.count)
        let (report, importing) = try await Console.timed {
            try await importer.run(meteorites) { bar.update($0) }
        }
        print(
            "Saved \(Console.grouped(report.saved)) meteorites in \(report.batches) batches of up to "
                + "\(Console.grouped(importer.batchSize)), one transaction each, in \(Console.format(importing))."
        )
    }

    /// The view model's fetch while the API answers.
    ///
    /// - Throws: ``StoryFailure`` when the fetch alerts, or the database failed behind it.
    func fetchOnline(_ viewModel: MeteoriteViewModel) async throws {
        Console.heading("Online: initFetch()")
        let ((), querying) = await Console.timed { await viewModel.initFetch() }
        show(viewModel, took: querying)
        if let alert = viewModel.alertMessage {
            throw StoryFailure("initFetch() failed while the API was online: \(alert)")
        }
        try mirrorFailures.check(Self.fileName)
        let total = try await database.count()
        let geolocated = try await database.count(.geolocated)
        print(
            "\(Self.fileName) holds \(Console.grouped(total)) meteorites: "
                + "\(Console.grouped(geolocated)) geolocated, "
                + "\(Console.grouped(total - geolocated)) without location.")
        print("The five heaviest on the map:")
        for meteorite in try await database.fetch(.heaviestGeolocated(5)) {
            print("  " + MeteoriteFormat.row(meteorite))
        }
        let search = "Allan"
        let found = try await database.fetch(.named(startingWith: search, limit: 3))
        let matching = try await database.count(Query<Meteorite>().where(.hasPrefix(\.name, search)))
        print("Search \"\(search)\": \(Console.grouped(matching)) names start with it; the first three:")
        for meteorite in found { print("  " + MeteoriteFormat.row(meteorite)) }
    }

    /// The view model's fetch once the API is unreachable: SQLite answers.
    private func fetchOffline(_ viewModel: MeteoriteViewModel) async throws {
        Console.heading("Offline: initFetch() again")
        remote.network.goOffline()
        try await fetchWhileOffline(viewModel)
    }

    /// Fetches with the API unreachable, and says who answered.
    ///
    /// - Throws: ``StoryFailure`` when the database failed behind the API.
    private func fetchWhileOffline(_ viewModel: MeteoriteViewModel) async throws {
        let refused = remote.network.refused
        let ((), querying) = await Console.timed { await viewModel.initFetch() }
        show(viewModel, took: querying)
        try mirrorFailures.check(Self.fileName)
        let requests = remote.network.refused - refused
        if viewModel.alertMessage == nil {
            print(
                "The API refused \(requests) request\(requests == 1 ? "" : "s"), "
                    + "so the list was served from \(Self.fileName) (the fallback).")
        } else {
            print("Nothing to fall back on: run without --offline to import the list.")
        }
    }

    /// The article's offline launch: with nothing saved, the API's error reaches the alert.
    private func fetchOfflineFromTheStart(_ viewModel: MeteoriteViewModel) async throws {
        Console.heading("Offline from the start")
        print("\(Self.fileName) holds \(Console.grouped(try await database.count())) meteorites.")
        try await fetchWhileOffline(viewModel)
    }

    private func show(_ viewModel: MeteoriteViewModel, took duration: Duration) {
        print(
            "meteoriteList: \(Console.grouped(viewModel.numberOfCells)) meteorites, "
                + "isLoading: \(viewModel.isLoading), alertMessage: \(viewModel.alertMessage ?? "nil")")
        print("initFetch() took \(Console.format(duration)).")
    }
}
