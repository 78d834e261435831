import Repositories
import RepositoriesTesting
import Testing

@Suite struct UnimplementedTests {
    @Test func everyEndpointReportsAFailureNamingItself() async {
        let repository = AnyRepository<ConformanceEntity, Int>.unimplemented("products")
        await withKnownIssue {
            await #expect(throws: RepositoryError.self) { try await repository.fetchAll() }
        } matching: { issue in
            issue.description.contains("products.fetchAll()") && issue.description.contains("onFetchAll")
        }
        await withKnownIssue {
            await #expect(throws: RepositoryError.self) {
                try await repository.save(.make(index: 1, revision: 0))
            }
        } matching: { issue in
            issue.description.contains("products.save(_:)")
        }
    }

    @Test func anOverriddenEndpointAnswersWithoutFailure() async throws {
        var repository = AnyRepository<ConformanceEntity, Int>.unimplemented("products")
        repository.onFetch = { id in .make(index: id, revision: 0) }
        #expect(try await repository.fetch(id: 4) == .make(index: 4, revision: 0))
    }

    @Test func theThrownErrorIsRejected() async {
        let repository = AnyRepository<ConformanceEntity, Int>.unimplemented()
        await withKnownIssue {
            let error = await #expect(throws: RepositoryError.self) { try await repository.count() }
            #expect(error?.code == .rejected)
        } matching: { issue in
            issue.description.contains("count()")
        }
    }
}
