import Testing

@testable import Repositories

@Suite struct SuspectKeysTests {
    /// What the marks say: whether none is set, whether every key is suspect, and which of the
    /// keys asked about are suspect. (`#expect` cannot capture the noncopyable marks.)
    private struct Reading: Equatable {
        var isEmpty: Bool
        var allSuspect: Bool
        var suspect: Set<Int>
    }

    private func read(_ suspects: borrowing _SuspectKeys<Int>, asking keys: [Int]) -> Reading {
        Reading(
            isEmpty: suspects.isEmpty, allSuspect: suspects.allSuspect,
            suspect: Set(keys.filter { suspects.contains($0) }))
    }

    private let limit = _SuspectKeys<Int>.limit

    @Test func nothingIsSuspectAtFirst() {
        let suspects = _SuspectKeys<Int>()
        #expect(read(suspects, asking: [1]) == Reading(isEmpty: true, allSuspect: false, suspect: []))
    }

    @Test func aMarkedKeyIsSuspectUntilCleared() {
        let suspects = _SuspectKeys<Int>()
        suspects.mark(.keys([1, 2]))
        #expect(
            read(suspects, asking: [1, 2, 3]) == Reading(isEmpty: false, allSuspect: false, suspect: [1, 2]))
        suspects.clear(.key(1))
        #expect(
            read(suspects, asking: [1, 2, 3]) == Reading(isEmpty: false, allSuspect: false, suspect: [2]))
        suspects.clear(.key(2))
        #expect(read(suspects, asking: [1, 2, 3]) == Reading(isEmpty: true, allSuspect: false, suspect: []))
    }

    @Test func markingEveryKeyMakesEveryKeySuspectUntilClearedWhole() {
        let suspects = _SuspectKeys<Int>()
        suspects.mark(.all)
        #expect(
            read(suspects, asking: [1, 12_345])
                == Reading(isEmpty: false, allSuspect: true, suspect: [1, 12_345]))
        suspects.clear(.all)
        #expect(
            read(suspects, asking: [1, 12_345]) == Reading(isEmpty: true, allSuspect: false, suspect: []))
    }

    @Test func clearingSingleKeysLeavesTheMarkOnEveryKey() {
        let suspects = _SuspectKeys<Int>()
        suspects.mark(.key(1))
        suspects.mark(.all)
        suspects.clear(.keys([1, 2]))
        #expect(
            read(suspects, asking: [1, 2]) == Reading(isEmpty: false, allSuspect: true, suspect: [1, 2]))
    }

    @Test func clearingEveryKeyClearsSingleMarksToo() {
        let suspects = _SuspectKeys<Int>()
        suspects.mark(.keys([1, 2]))
        suspects.clear(.all)
        #expect(read(suspects, asking: [1, 2]) == Reading(isEmpty: true, allSuspect: false, suspect: []))
    }

    @Test func upToItsLimitOnlyTheMarkedKeysAreSuspect() {
        let suspects = _SuspectKeys<Int>()
        suspects.mark(.keys(Set(0..<limit)))
        #expect(
            read(suspects, asking: [0, limit - 1, limit])
                == Reading(isEmpty: false, allSuspect: false, suspect: [0, limit - 1]))
    }

    @Test func pastItsLimitEveryKeyIsSuspect() {
        let suspects = _SuspectKeys<Int>()
        suspects.mark(.keys(Set(0..<limit)))
        suspects.mark(.key(limit))  // one more than the limit
        #expect(
            read(suspects, asking: [0, limit, limit * 10])
                == Reading(isEmpty: false, allSuspect: true, suspect: [0, limit, limit * 10]))
        // The single marks were folded into the mark on every key: clearing them lifts nothing.
        suspects.clear(.keys(Set(0...limit)))
        #expect(read(suspects, asking: [0]) == Reading(isEmpty: false, allSuspect: true, suspect: [0]))
        suspects.clear(.all)
        #expect(read(suspects, asking: [0]) == Reading(isEmpty: true, allSuspect: false, suspect: []))
    }
}
