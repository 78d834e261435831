import ExampleSupport
import Repositories

/// The run: a user's taps on the counter, scripted, each printed with the state change it
/// made, and after each fact request, where the fact came from.
@MainActor
struct CounterSession {
    private let remote: ExampleRemote<NumberFact>
    private let printer = ChangePrinter()
    private let store: Store<SanagichFeature>

    /// The counter over the remote `options` ask for (the simulated numbers API by default),
    /// behind the live cache.
    init(options: ExampleOptions) {
        remote = ExampleRemote(options: options, resource: "numbers", seed: NumberFactCatalog.facts)
        let feature = SanagichFeature(numberFact: NumberFactClient.live(api: remote.repository))
        store = Store(initialState: SanagichFeature.State(), feature: feature) { [printer] change in
            printer.print(change)
        }
    }

    /// Taps through the story and prints what happened.
    ///
    /// - Throws: ``StoryFailure`` when the counter does not behave as the story says.
    func run() async throws {
        print("NumberFacts: the article's TCA counter; its fact effect reads \(remote.origin)")
        let minutes = NumberFactClient.timeToLive.components.seconds / 60
        print("through an in-memory cache (a fact stays fresh for \(minutes) minutes).")
        print("The network is \(remote.network.isOnline ? "online" : "offline (--offline)").")

        Console.heading("Count to 3, ask for a fact, then ask again")
        tap(.oshirTugmasi, times: 3)
        await askForFact()
        await askForFact()

        Console.heading("Count down to 2 and ask")
        tap(.kamayirTugmasi)
        await askForFact()

        Console.heading("Count down to 1 and tap \"Fakt olish\" twice quickly")
        tap(.kamayirTugmasi)
        let answersBefore = printer.answers
        store.send(.faktSorash)
        await askForFact()
        let answers = printer.answers - answersBefore
        guard answers == 1 else {
            throw StoryFailure(
                "2 taps brought \(answers) answers: the second tap did not cancel the first request")
        }
        print("  ⤷ 2 taps, 1 answer: the second tap cancelled the first request")

        Console.heading("Count down to -1, a number the API has no fact for")
        tap(.kamayirTugmasi, times: 2)
        await askForFact()

        Console.heading("The network goes down")
        remote.network.goOffline()
        print("The network is offline.")
        tap(.oshirTugmasi, times: 3)
        await askForFact()
        tap(.oshirTugmasi, times: 2)
        await askForFact()
        tap(.oshirTugmasi)

        Console.heading("Summary")
        let state = store.state
        print(
            "Counter at \(state.son); fact shown: \(state.fakt ?? "none"); error shown: \(state.xato ?? "none")"
        )
        print(
            "Numbers API: \(remote.network.requests) requests reached it, \(remote.network.refused) refused (offline)"
        )
    }

    private func tap(_ action: SanagichFeature.Action, times: Int = 1) {
        for _ in 0..<times { store.send(action) }
    }

    /// Taps "Fakt olish", waits for the answer, and says where it came from.
    private func askForFact() async {
        let (requests, refused) = (remote.network.requests, remote.network.refused)
        let ((), duration) = await Console.timed { await store.send(.faktSorash).finish() }
        let took = Console.format(duration)
        let total = remote.network.requests
        let state = store.state
        let source: String
        if remote.network.refused > refused {
            source = "the network is off and \(state.son) is not in the cache: the request was refused"
        } else if total == requests {
            source = "from the cache: no API request, still \(total) so far"
        } else if state.fakt == nil {
            source = "the numbers API answered, with nothing: request \(total); nothing was cached"
        } else {
            source = "from the numbers API: request \(total)"
        }
        print("  ⤷ \(source) (\(took))")
    }
}
