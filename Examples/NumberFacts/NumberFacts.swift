// NumberFacts, from the article "TCA — The Composable Architecture"
// (shared/seeds/002_1dfd87149e90f248.txt): the article's counter, whose "Fakt olish" button
// fetches a fact about the number from numbersapi.com in a reducer's effect.
//
// No TCA here: a tiny reducer architecture of the same shape (Architecture/: Reducer,
// Effect, Send, Store). The effect reads a `Repository<NumberFact, Int>`, the simulated
// numbers API behind a cache:
//
//     remote.repository.cached(in: InMemoryRepository<Cached<NumberFact>>(), timeToLive: .seconds(300))
//
// The run taps through the counter like a user and prints every action and state change:
// a repeated fact comes from the cache with no API request, a number with no fact and an
// offline request end in a clear error in the state, and a second tap cancels the first
// request. `swift run NumberFacts --offline` starts with the network down.
import ExampleSupport

/// The entry point: `swift run NumberFacts [--offline] [--api URL]`.
@main enum NumberFactsExample {
    static func main() async {
        await ExampleCommand.run(example: "NumberFacts", dataDirectoryHelp: nil) { options in
            try await CounterSession(options: options).run()
        }
    }
}
