import ExampleSupport
import Repositories
import Testing

@Suite struct MirrorFailuresTests {
    @Test func nothingFailedMeansTheCheckPasses() throws {
        try MirrorFailures().check("store.journal")
    }

    @Test func aFailureIsReportedOnceNamingTheStoreAndTheCause() throws {
        let failures = MirrorFailures()
        failures.record(
            TierFailure(stage: .fill, operation: .fetchAll, error: RepositoryError.closed(location: "/tmp/x"))
        )
        #expect(failures.all.count == 1)
        let error = #expect(throws: StoryFailure.self) { try failures.check("store.journal") }
        #expect(error?.description.hasPrefix("The local store store.journal failed behind the API") == true)
        #expect(error?.description.contains("/tmp/x") == true)
        #expect(failures.all.isEmpty)
        try failures.check("store.journal")
    }
}
