import Repositories

/// Which todos the list shows, each as the `Query` the repository runs: oldest first.
enum TodoFilter: String, CaseIterable, Sendable {
    /// Every todo.
    case all
    /// The todos not done yet.
    case open
    /// The todos done.
    case done

    /// The query that selects this filter's todos, sorted by creation date (ties keep the
    /// order they were added in).
    var query: Query<Todo> {
        let byDate = Query<Todo>().sorted(by: \.date)
        switch self {
        case .all: return byDate
        case .open: return byDate.filter { !$0.isDone }
        case .done: return byDate.filter { $0.isDone }
        }
    }
}
