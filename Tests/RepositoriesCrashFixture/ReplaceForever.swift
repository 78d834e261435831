import Repositories
import RepositoriesTestSupport

/// `writers` tasks replace their own 20 entities in `store` forever, printing "id revision"
/// for each entity once the call that saved it returned; every fifth save of a writer is a
/// batch of all its entities, and revisions start above `firstRevision` and only grow.
func replaceForever<Store: Repository>(in store: Store, writers: Int, firstRevision: Int) async throws
where Store.Entity == FixtureEntity, Store.ID == Int {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for writer in 0..<writers {
            group.addTask {
                let ids = (0..<20).map { writer * 100 + $0 }
                var revision = firstRevision
                while true {
                    revision += 1
                    if revision % 5 == 0 {
                        try await store.save(
                            contentsOf: ids.map { FixtureEntity.make($0, revision: revision) })
                        for id in ids { say("\(id) \(revision)") }
                    } else {
                        let id = ids[revision % ids.count]
                        try await store.save(FixtureEntity.make(id, revision: revision))
                        say("\(id) \(revision)")
                    }
                }
            }
        }
        try await group.waitForAll()
    }
}
