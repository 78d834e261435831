import Repositories

/// The article's counter ("sanagich"): "+" and "−" change the number, "Fakt olish" asks
/// the ``NumberFactClient`` for a fact about it.
///
/// Only the newest fact request can answer: asking again cancels the request in flight,
/// and changing the number cancels it too, so the fact on screen is always about the
/// number on screen.
struct SanagichFeature: Reducer {
    /// The IDs of the feature's cancellable effects.
    enum CancelID {
        /// The fact request in flight.
        case fakt
    }

    /// Where facts come from (TCA: `@Dependency(\.numberFact)`): the cached API in the app,
    /// a double in tests.
    let numberFact: AnyRepository<NumberFact, Int>

    /// Applies `action` to `state`; a fact request returns the effect that fetches it.
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .oshirTugmasi:
            state.son += 1
            return numberChanged(&state)

        case .kamayirTugmasi:
            state.son -= 1
            return numberChanged(&state)

        case .faktSorash:
            state.yuklanmoqda = true
            state.fakt = nil
            state.xato = nil
            return .run { [son = state.son, numberFact] send in
                guard let answer = await Self.fact(about: son, from: numberFact) else { return }
                await send(.faktJavob(answer))
            }
            .cancellable(id: CancelID.fakt, cancelInFlight: true)

        case .faktJavob(.success(let fact)):
            state.yuklanmoqda = false
            state.fakt = fact.text
            return .none

        case .faktJavob(.failure(let error)):
            state.yuklanmoqda = false
            state.xato = Self.explain(error, number: state.son)
            return .none
        }
    }

    /// The number changed: the old fact, error and request no longer apply.
    private func numberChanged(_ state: inout State) -> Effect<Action> {
        state.fakt = nil
        state.xato = nil
        guard state.yuklanmoqda else { return .none }
        state.yuklanmoqda = false
        return .cancel(id: CancelID.fakt)
    }

    /// The fact about `number`, or why there is none; `nil` when the request was cancelled,
    /// because a newer request (or a new number) has replaced it.
    private static func fact(
        about number: Int, from facts: AnyRepository<NumberFact, Int>
    ) async -> Result<NumberFact, RepositoryError>? {
        do {
            return .success(try await facts.require(id: number))
        } catch {
            if Task.isCancelled { return nil }
            if let error = error as? RepositoryError { return .failure(error) }
            return .failure(
                RepositoryError(.unavailable, reason: "The fact source failed: \(error)", underlying: error))
        }
    }

    /// What the screen says when the request for `number` failed with `error`.
    private static func explain(_ error: RepositoryError, number: Int) -> String {
        if error.code == .notFound { return "No fact for \(number): the numbers API has none." }
        let recovery = error.recovery.map { " \($0)." } ?? ""
        return "Could not get a fact for \(number): \(error.reason).\(recovery)"
    }
}
