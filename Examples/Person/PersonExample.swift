// Person: the Japanese article "【SwiftUI】Repositoryパターン" (shared/seeds/004_e6f463f3878136d9.txt).
// Its UserDefaultsPersonRepository stored the people as one JSON value under the key
// "person", threw a typed UserDefaultsPersonRepositoryError (dataNotFound, decodingError,
// encodingError), and its ContentViewModel removed a row at once and put the old list back
// when saving failed.
//
// Here the store is the package's `UserDefaultsRepository<Person>(key: "person", defaults:)`
// in a suite of the run's own (see PersonDefaults for where a suite lives on Linux and on
// Apple platforms, and how it is removed at the end). The article's closing point, that the
// data source can change without touching the view model, is taken one step: the view model
// gets `api.fallback(to: userDefaults)`, the people API with the UserDefaults copy beside it,
// and still knows only `any Repository<Person, UUID>`. The run shows
// - the launch served by the API, or by the UserDefaults copy when the API is out of reach;
// - the rollback for real: the network drops, `removePerson(at:)` takes Naruto off the list,
//   the API refuses the delete, and Naruto is back in the same place with an error message;
// - the article's typed errors as `RepositoryError` codes, with the sentence the user sees.
// Under `--offline` the API is out of reach from the start: the launch is served from
// UserDefaults, adding fails cleanly, and every removal rolls back.
//
// Run: swift run Person [--offline] [--api URL] [--data-dir PATH]
import ExampleSupport

/// `swift run Person`: see the header comment.
@main enum PersonExample {
    static func main() async {
        await ExampleCommand.run(
            example: "Person",
            dataDirectoryHelp:
                "keep the people between runs, in the UserDefaults suite Repositories.Examples.Person (UserDefaults picks its file; PATH is not used)"
        ) { options in
            try await PersonStory.run(options: options)
        }
    }
}
