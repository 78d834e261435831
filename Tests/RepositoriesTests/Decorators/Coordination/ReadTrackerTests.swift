import Testing

@testable import Repositories

@Suite struct ReadTrackerTests {
    @Test func aReadNoWriteTouchedIsClean() {
        let tracker = ReadTracker<Int>()
        let read = tracker.begin(.key(1))
        #expect(tracker.isClean(read))
    }

    @Test func aWriteOverlappingAReadDirtiesIt() {
        let tracker = ReadTracker<Int>()
        let read = tracker.begin(.keys([1, 2]))
        tracker.noteWrite(.keys([2, 3]))
        #expect(!tracker.isClean(read))
    }

    @Test func aWriteOfOtherKeysLeavesAReadClean() {
        let tracker = ReadTracker<Int>()
        let read = tracker.begin(.keys([1, 2]))
        tracker.noteWrite(.keys([3, 4]))
        #expect(tracker.isClean(read))
    }

    @Test func aWriteBeforeAReadBeganLeavesItClean() {
        let tracker = ReadTracker<Int>()
        tracker.noteWrite(.key(1))
        tracker.noteWrite(.all)
        let read = tracker.begin(.key(1))
        #expect(tracker.isClean(read))
    }

    @Test func aWriteOfEveryKeyDirtiesEveryRead() {
        let tracker = ReadTracker<Int>()
        let one = tracker.begin(.key(1))
        let whole = tracker.begin(.all)
        tracker.noteWrite(.all)
        #expect(!tracker.isClean(one))
        #expect(!tracker.isClean(whole))
    }

    @Test func aWriteOfAnyKeyDirtiesAReadOfEveryKey() {
        let tracker = ReadTracker<Int>()
        let whole = tracker.begin(.all)
        let other = tracker.begin(.key(2))
        tracker.noteWrite(.key(1))
        #expect(!tracker.isClean(whole))
        #expect(tracker.isClean(other))
    }

    @Test func onlyTheOverlappingReadsOfSeveralAreDirtied() {
        let tracker = ReadTracker<Int>()
        let first = tracker.begin(.key(1))
        let second = tracker.begin(.key(1))
        let third = tracker.begin(.key(2))
        tracker.noteWrite(.key(1))
        #expect(!tracker.isClean(first))
        #expect(!tracker.isClean(second))
        #expect(tracker.isClean(third))
    }

    @Test func anEndedReadIsForgottenAndNeverClean() {
        let tracker = ReadTracker<Int>()
        let read = tracker.begin(.key(1))
        tracker.end(read)
        #expect(!tracker.isClean(read))
        tracker.noteWrite(.key(1))  // nothing to mark, nothing to trip over
        let next = tracker.begin(.key(1))
        #expect(next != read)
        #expect(tracker.isClean(next))
    }

    @Test func readingPassesATokenThatSeesWritesDuringTheBody() async {
        let tracker = ReadTracker<Int>()
        let (cleanBefore, cleanAfter, token) = await tracker.reading(.key(1)) { token in
            let before = tracker.isClean(token)
            tracker.noteWrite(.key(1))
            return (before, tracker.isClean(token), token)
        }
        #expect(cleanBefore)
        #expect(!cleanAfter)
        #expect(!tracker.isClean(token))  // ended with the body
    }
}
