import Repositories
import RepositoriesTesting
import Testing

@Suite struct UnimplementedTests {
    @Test func everyEndpointReportsAFailureNamingItself() async {
        let repository = AnyRepository<ConformanceEntity, Int>.unimplemented("products")
        let reported = await capturingTestFailures {
            await #expect(throws: UnimplementedEndpointError.self) { try await repository.fetchAll() }
            await #expect(throws: UnimplementedEndpointError.self) {
                try await repository.save(.make(index: 1, revision: 0))
            }
        }
        #expect(reported.count == 2, "\(reported)")
        #expect(reported.first?.message.contains("products.fetchAll()") == true)
        #expect(reported.first?.message.contains("onFetchAll") == true)
        #expect(reported.last?.message.contains("products.save(_:)") == true)
    }

    @Test func anOverriddenEndpointAnswersWithoutFailure() async throws {
        var repository = AnyRepository<ConformanceEntity, Int>.unimplemented("products")
        repository.onFetch = { id in .make(index: id, revision: 0) }
        #expect(try await repository.fetch(id: 4) == .make(index: 4, revision: 0))
    }

    /// App code that branches on `RepositoryError` `rejected` must not take an unset
    /// endpoint for a real refusal.
    @Test func theThrownErrorNamesTheEndpointAndIsNoRepositoryError() async {
        let repository = AnyRepository<ConformanceEntity, Int>.unimplemented("products")
        let thrown = LockedBox<(any Error)?>(nil)
        let reported = await capturingTestFailures {
            do {
                _ = try await repository.count()
            } catch {
                thrown.update { $0 = error }
            }
        }
        #expect(reported.map(\.message).contains { $0.contains("products.count()") }, "\(reported)")
        #expect(!(thrown.value is RepositoryError))
        guard let error = thrown.value as? UnimplementedEndpointError else {
            Issue.record("expected UnimplementedEndpointError, got \(String(describing: thrown.value))")
            return
        }
        #expect(error == UnimplementedEndpointError(dependency: "products", operation: .count))
        #expect(error.endpoint == "onCount")
        #expect(
            error.description
                == "Unimplemented: products.count() was called. Set products.onCount in this test if the call is expected."
        )
        #expect(error.localizedDescription == error.description)
    }

    @Test func everyOperationHasItsOwnEndpoint() {
        let endpoints = RepositoryOperation.allCases.map {
            UnimplementedEndpointError(dependency: "d", operation: $0).endpoint
        }
        #expect(Set(endpoints).count == RepositoryOperation.allCases.count)
    }

    @Test func theDefaultNameIsTheRepositorysType() async {
        let repository = AnyRepository<ConformanceEntity, Int>.unimplemented()
        let reported = await capturingTestFailures {
            await #expect(
                throws: UnimplementedEndpointError(
                    dependency: "AnyRepository<ConformanceEntity, Int>", operation: .deleteAll)
            ) { try await repository.deleteAll() }
        }
        #expect(
            reported.map(\.message).contains {
                $0.contains("AnyRepository<ConformanceEntity, Int>.deleteAll()")
            },
            "\(reported)")
    }
}
