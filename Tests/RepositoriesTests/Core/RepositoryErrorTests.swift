import Foundation
import Repositories
import Testing

@Suite struct RepositoryErrorTests {
    struct Underlying: Error, CustomStringConvertible {
        var description: String { "disk said no" }
    }

    @Test func descriptionNamesTheRecordThePlaceAndWhatToDo() {
        let error = RepositoryError.corrupted(
            "The record's checksum does not match", location: "/data/products.store", offset: 4_096)
        #expect(error.description.contains("corrupted"))
        #expect(error.description.contains("/data/products.store"))
        #expect(error.description.contains("offset 4096"))
        #expect(error.description.contains("backup"))
    }

    @Test func localizedDescriptionIsTheSentenceNotAGenericOne() {
        let error: any Error = RepositoryError.notFound(id: 42)
        #expect(error.localizedDescription == (error as? RepositoryError)?.description)
        #expect(error.localizedDescription.contains("42"))
        let localized = error as? LocalizedError
        #expect(localized?.failureReason == "No entity is stored under this ID")
        #expect(localized?.recoverySuggestion?.contains("fetch(id:)") == true)
    }

    @Test func theUnderlyingErrorIsKept() {
        let error = RepositoryError.decodingFailed(
            record: "id 7", location: "products.store", underlying: Underlying())
        #expect(error.underlying is Underlying)
        #expect(error.description.contains("disk said no"))
        #expect(error.description.contains("record id 7"))
    }

    @Test func writtenByNewerVersionNamesTheFileBothVersionsAndWhatToDo() {
        let error = RepositoryError.writtenByNewerVersion(3, knownVersion: 2, location: "/data/todos.store")
        #expect(error.code == .writtenByNewerVersion)
        #expect(error.description.contains("/data/todos.store"))
        #expect(error.reason.contains("version 3"))
        #expect(error.reason.contains("up to 2"))
        #expect(error.recovery?.contains("Update the app") == true)
        #expect(error.recovery?.contains("untouched") == true)
    }

    @Test func notFoundNamesTheID() {
        #expect(RepositoryError.notFound(id: 42).description.contains("ID 42"))
        #expect(RepositoryError.notFound(id: 42).id == "42")
    }

    @Test func everyCategoryIsDistinct() {
        let errors: [RepositoryError] = [
            .notFound(id: 1), .unavailable("down"), .timedOut(after: .seconds(1), operation: "fetch(id:)"),
            .circuitOpen(retryAfter: .seconds(30)), .rejected("read-only"), .conflict("changed"),
            .locked(location: "a.store"), .corrupted("bad", location: "a.store"),
            .encodingFailed(id: "1", underlying: Underlying()),
            .decodingFailed(record: "1", underlying: Underlying()),
            .closed(),
            .partiallyApplied(
                .save, removed: true, underlying: Underlying(), primary: "remote", second: "local store"),
            .writtenByNewerVersion(3, knownVersion: 2, location: "a.store"),
            RepositoryError(.cursorExpired, reason: "tombstones pruned"),
            RepositoryError(.heldBack, reason: "waits for Inspection 7"),
        ]
        #expect(Set(errors.map(\.code)) == Set(RepositoryError.Code.all))
    }

    /// Every code, by the name it had as an enum case: its static member, its raw value and
    /// its description are that name, so the outbox's stored codes still read back.
    static let codesByName: [(RepositoryError.Code, String)] = [
        (.notFound, "notFound"), (.unavailable, "unavailable"), (.timedOut, "timedOut"),
        (.circuitOpen, "circuitOpen"), (.rejected, "rejected"), (.conflict, "conflict"),
        (.locked, "locked"), (.corrupted, "corrupted"), (.encodingFailed, "encodingFailed"),
        (.decodingFailed, "decodingFailed"), (.closed, "closed"), (.partiallyApplied, "partiallyApplied"),
        (.writtenByNewerVersion, "writtenByNewerVersion"), (.cursorExpired, "cursorExpired"),
        (.heldBack, "heldBack"),
    ]

    @Test func everyCodeKeepsItsNameAsRawValueAndDescription() {
        for (code, name) in Self.codesByName {
            #expect(code.rawValue == name)
            #expect(code.description == name)
            #expect(RepositoryError.Code(rawValue: name) == code)
        }
        #expect(RepositoryError.Code.all.map(\.rawValue) == Self.codesByName.map(\.1))
        #expect(RepositoryError.Code(rawValue: "aCodeOfALaterVersion") == nil)
    }

    @Test func aSwitchOverTheCodeMatchesItsStaticMembers() {
        func advice(_ code: RepositoryError.Code) -> String {
            switch code {
            case .notFound: "gone"
            case .unavailable, .timedOut: "offline"
            default: "other"
            }
        }
        #expect(advice(RepositoryError.notFound(id: 1).code) == "gone")
        #expect(advice(.timedOut) == "offline")
        #expect(advice(.conflict) == "other")
    }

    @Test func aCatchClauseCanMatchOnTheCode() {
        func classify(_ error: any Error) -> String {
            do {
                throw error
            } catch let error as RepositoryError where error.code == .locked {
                return "locked"
            } catch let error as RepositoryError where error.code == .notFound {
                return "not found"
            } catch {
                return "other"
            }
        }
        #expect(classify(RepositoryError.locked(location: "x")) == "locked")
        #expect(classify(RepositoryError.notFound(id: 3)) == "not found")
        #expect(classify(CancellationError()) == "other")
    }

    @Test func requireThrowsNotFoundNamingTheID() async {
        let store = InMemoryRepository<Item>()
        let error = await #expect(throws: RepositoryError.self) { try await store.require(id: "missing") }
        #expect(error?.code == .notFound)
        #expect(error?.id == "missing")
    }

    struct Item: Identifiable, Sendable { var id: String }
}
