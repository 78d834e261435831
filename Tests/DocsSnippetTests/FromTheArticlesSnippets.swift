import Foundation
import Repositories
import RepositoriesHTTP
import RepositoriesSQLite
import RepositoriesTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Swift snippets of Docs/FromTheArticles.md, verbatim: the articles' own code, over the
/// few declarations of theirs it needs, and the lines that replace it, over stand-ins for the
/// examples' view models.
enum FromTheArticlesSnippets {
    // MARK: Mahsulot

    struct Mahsulot: Identifiable, Codable, Sendable {
        var id: Int
        var nomi: String
    }

    /// The article's remote source.
    protocol MahsulotAPIProtocol: Sendable {
        func mahsulotlarniYukla() async throws -> [Mahsulot]
        func mahsulotniSaqlash(_ mahsulot: Mahsulot) async throws
    }

    /// The article's local source.
    protocol MahsulotStorageProtocol: Sendable {
        func saqlash(_ mahsulotlar: [Mahsulot]) async throws
        func hammasi() async throws -> [Mahsulot]
    }

    /// The article's repository.
    struct MahsulotRepository {
        let remoteDataSource: any MahsulotAPIProtocol
        let localDataSource: any MahsulotStorageProtocol

        func hammasi() async throws -> [Mahsulot] {
            do {
                let tarmoqdan = try await remoteDataSource.mahsulotlarniYukla()
                try await localDataSource.saqlash(tarmoqdan)
                return tarmoqdan
            } catch {
                let lokal = try await localDataSource.hammasi()
                if lokal.isEmpty { throw error }
                return lokal
            }
        }

        func saqlash(_ mahsulot: Mahsulot) async throws {
            try await remoteDataSource.mahsulotniSaqlash(mahsulot)
            try await localDataSource.saqlash([mahsulot])
        }
    }

    /// Stands in for the example's view model.
    @MainActor final class MahsulotlarViewModel {
        init(repository: any SyncingRepository<Mahsulot, Int>) {}
    }

    @MainActor static func mahsulot(api: HTTPRepository<Mahsulot>, directory: URL) async throws {
        let journal = directory.appending(path: "mahsulotlar.journal")
        let local = try await FileRepository<Mahsulot>(fileURL: journal)
        let outbox = try await Outbox<Mahsulot>(fileURL: directory.appending(path: "mahsulotlar.outbox"))
        let mahsulotlar = api.offlineFirst(
            local: local, outbox: outbox, conflicts: .mergeFields(tie: .remote))
        let viewModel = MahsulotlarViewModel(repository: mahsulotlar)  // a SyncingRepository
        _ = viewModel
    }

    // MARK: Meteorite

    struct Meteorite: Identifiable, Codable, Sendable {
        var id: Int
        var isGeolocated: Bool
    }

    /// The article's repository, with completion handlers.
    final class DataRepository: Sendable {
        func getAPIInfo(completion: @escaping @Sendable (Result<[Meteorite], any Error>) -> Void) {}
        func getDBInfo(completion: @escaping @Sendable (Result<[Meteorite], any Error>) -> Void) {}

        func getInfo(completion: @escaping @Sendable (Result<[Meteorite], any Error>) -> Void) {
            getAPIInfo { [weak self] result in
                switch result {
                case .success(let meteorites):
                    completion(.success(meteorites))
                case .failure(let error):
                    completion(.failure(error))
                    DispatchQueue.main.async {
                        self?.getDBInfo { result in
                            completion(.success(try! result.get()))
                        }
                    }
                }
            }
        }
    }

    static func meteorite(
        api: HTTPRepository<Meteorite>, databaseURL: URL, batch: [Meteorite]
    ) async throws -> [Meteorite] {
        let database = try await SQLiteRepository<Meteorite>(fileURL: databaseURL)
        let meteorites = api.fallback(to: database)
        try await database.save(contentsOf: batch)  // the import: one transaction per 2,000
        let geolocated = try await meteorites.fetch(.geolocated)  // Query().filter(\.isGeolocated)
        return geolocated
    }

    // MARK: Todo

    /// The article's code, with its own `Todo`.
    final class UserDefaultsTodoRepository {
        struct Todo {
            var todo: String
            var date: Date
        }

        func fetch(completion: @escaping ([Todo]?) -> Void) {
            var todos: [Todo] = []
            guard let savedTodos = UserDefaults.standard.object(forKey: "todo") as? [String] else { return }
            guard let savedDates = UserDefaults.standard.object(forKey: "date") as? [Date] else { return }
            for i in 1...savedTodos.count {
                todos.append(Todo(todo: savedTodos[i - 1], date: savedDates[i - 1]))
            }
            completion(todos)
        }
    }

    struct Todo: Identifiable, Codable, Sendable {
        var id: UUID
        var title: String
    }

    /// Stands in for the example's view model.
    final class TodoViewModel {
        init(repository: any Repository<Todo, UUID>) {}
    }

    static func todo(api: HTTPRepository<Todo>, todosURL: URL, outboxURL: URL) async throws {
        let todos = api.offlineFirst(
            local: try await FileRepository<Todo>(fileURL: todosURL),
            outbox: try await Outbox<Todo>(fileURL: outboxURL), conflicts: .lastWriterWins)
        let viewModel = TodoViewModel(repository: todos)  // any Repository<Todo, UUID>
        let spy = SpyRepository(InMemoryRepository<Todo>())  // in the tests, instead of the mock
        _ = (viewModel, spy)
    }

    // MARK: Person

    struct Person: Identifiable, Codable, Sendable {
        var id: UUID
        var name: String
    }

    /// The article's view model.
    final class ArticleContentViewModel {
        var persons: [Person] = []

        func savePersons(_ persons: [Person]) throws {}

        func removePerson(at offset: IndexSet) {
            let prePersons = persons
            do {
                for i in offset {
                    let removeTarget = persons[i]
                    persons.removeAll { person in person.id == removeTarget.id }
                    try savePersons(self.persons)
                }
            } catch {
                persons = prePersons
                print("💥", error)
            }
        }
    }

    /// The example's view model, around the lines the guide shows.
    @MainActor final class ContentViewModel {
        var persons: [Person] = []

        func restore(_ removed: [(offset: Int, element: Person)]) {}
        func reloadAfterFailedRemoval() async {}

        func removePerson(at offsets: IndexSet, api: HTTPRepository<Person>, defaults: UserDefaults) async {
            let people = api.fallback(to: UserDefaultsRepository<Person>(key: "person", defaults: defaults))

            // ContentViewModel.removePerson(at:): the IDs are taken before the list changes.
            let removed = persons.enumerated().filter { offsets.contains($0.offset) }
            persons.removeAll { person in removed.contains { $0.element.id == person.id } }
            do {
                try await people.delete(ids: removed.map(\.element.id))  // one call, all or nothing
            } catch {
                restore(removed)  // each person back at their old position
                await reloadAfterFailedRemoval()  // then what is really stored, in case the API took it
            }
        }
    }

    // MARK: NumberFacts

    /// The few pieces of The Composable Architecture the article's reducer uses.
    enum Action: Sendable {
        case faktSorash
        case faktJavob(String)
    }

    struct Send: Sendable {
        func callAsFunction(_ action: Action) async {}
    }

    struct Effect: Sendable {
        static var none: Effect { Effect() }
        static func run(_ operation: @escaping @Sendable (Send) async throws -> Void) -> Effect { Effect() }
    }

    struct State {
        var son = 0
    }

    /// The article's reducer.
    static func reduce(into state: inout State, action: Action) -> Effect {
        switch action {
        case .faktSorash:
            return .run { [son = state.son] send in
                let url = URL(string: "http://numbersapi.com/\(son)")!
                let (data, _) = try await URLSession.shared.data(from: url)
                let fakt = String(data: data, encoding: .utf8) ?? "Noma'lum"
                await send(.faktJavob(fakt))
            }
        case .faktJavob:
            return .none
        }
    }

    struct NumberFact: Identifiable, Codable, Sendable {
        var id: Int
        var text: String
    }

    static func numberFacts(api: HTTPRepository<NumberFact>, son: Int) async throws -> NumberFact {
        let facts = api.cached(in: InMemoryRepository<Cached<NumberFact>>(), timeToLive: .seconds(300))
        let fact = try await facts.require(id: son)
        return fact
    }
}

extension Query where Entity == FromTheArticlesSnippets.Meteorite {
    /// The meteorites with a location, as the Meteorite example defines it.
    static var geolocated: Query<Entity> { Query().filter(\.isGeolocated) }
}
