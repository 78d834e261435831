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
    /// order they were added in): conditions on declared fields, which a store with indexes
    /// answers without reading the other todos.
    var query: Query<Todo> {
        let byDate = Query<Todo>().sorted(by: \.date)
        switch self {
        case .all: return byDate
        case .open: return byDate.where(\.isDone == false)
        case .done: return byDate.where(\.isDone == true)
        }
    }
}
