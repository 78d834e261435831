import Foundation
import Repositories
import RepositoriesTestSupport
import RepositoriesTesting
import Testing

/// `sync()` says what it did: what it sent and the remote confirmed, what it received, the
/// conflicts it settled, what the remote refused and why, and the calls it made.
@Suite struct SyncReportTests {
    @Test func aSyncReportsWhatItSentConfirmedReceivedSettledAndRefused() async throws {
        let remote = Remote()
        try await remote.base.save(contentsOf: [item(1, 0), item(2, 0)])
        let device = try await Device(remote, conflicts: .serverWins)
        let first = try await device.notes.sync()
        #expect(first.received == 2 && first.sent == 0 && first.confirmed == 0, "\(first)")

        try await device.notes.save(item(1, 1))  // another device changes 1 meanwhile: a conflict
        try await remote.base.save(item(1, 5))
        try await device.notes.save(item(3, 0))  // new
        try await device.notes.delete(id: 2)
        try await device.notes.save(item(4, 0))  // refused
        remote.refuse(4)
        try await remote.base.save(item(9, 0))  // arrives from elsewhere

        let report = try await device.notes.sync()
        #expect(report.conflictedIDs == [1], "\(report)")
        #expect(report.sent == 3, "3, 2 and 4 went out; 1 was settled for the remote: \(report)")
        #expect(report.confirmed == 2, "3 and the delete of 2: \(report)")
        #expect(Set(report.rejections.keys) == [4] && report.rejections[4]?.code == .rejected, "\(report)")
        #expect(report.received == 1, "9 arrived (1 was put here when the conflict was settled): \(report)")
        #expect(report.requests >= 4, "a read of the copies, the sends and the pull: \(report)")
        #expect(!report.pullWasIncremental)
        #expect(report.duration > .zero)
        #expect(try await device.notes.fetch(id: 1) == item(1, 5), "server wins")

        let quiet = try await device.notes.sync()
        #expect(quiet.sent == 0 && quiet.confirmed == 0 && quiet.received == 0 && quiet.conflictedIDs.isEmpty)
        #expect(quiet.requests == 1, "only the pull: the refused change waits for retry(id:)")
        try await device.close()
    }

    /// A change an earlier try landed (its answer lost) is confirmed without being sent again.
    @Test func aChangeFoundOnTheRemoteIsConfirmedNotSent() async throws {
        let remote = AnswerLosingRemote()
        let device = try await Device(remote)
        try await device.notes.save(item(1, 0))
        remote.losesAnswers = true
        await #expect(throws: RepositoryError.self) { try await device.notes.sync() }
        remote.losesAnswers = false
        let report = try await device.notes.sync()
        #expect(report.sent == 0 && report.confirmed == 1 && report.conflictedIDs.isEmpty, "\(report)")
        try await device.close()
    }
}
