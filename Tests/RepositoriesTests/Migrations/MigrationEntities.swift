import RepositoriesTestSupport

/// The migration tests' entity in its three versions (see `MigrationFixtures`).
typealias TodoV1 = MigrationFixtures.TodoV1
typealias Todo = MigrationFixtures.Todo
typealias TodoV3 = MigrationFixtures.TodoV3
