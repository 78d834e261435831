import Synchronization

/// Paces the concurrency law's writers by its reader: each page the reader starts lets the
/// next `writesPerPage` writes go, whichever writers make them, so writes land between and
/// during the reader's pages however fast the store answers, and the reader keeps up
/// often enough to read at the end of the feed while writes land. No timing is involved.
///
/// The pacer owns the count of pages started, the writes waiting their turn and the
/// writers finished; the law only calls its operations.
final class _WriterPacer: Sendable {
    private struct State {
        var pagesStarted = 0
        var turnsTaken = 0
        var waiting: [(turn: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var releasedAll = false
        var writersFinished = 0
    }

    private let state = Mutex(State())
    private let writers: Int
    private let writesPerPage: Int

    init(writers: Int, writesPerPage: Int) {
        self.writers = writers
        self.writesPerPage = writesPerPage
    }

    /// Waits until the reader has started enough pages for the next write to go.
    func awaitTurn() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let goNow = state.withLock { state in
                let turn = state.turnsTaken
                state.turnsTaken += 1
                guard !state.releasedAll, turn >= state.pagesStarted * writesPerPage else { return true }
                state.waiting.append((turn, continuation))
                return false
            }
            if goNow { continuation.resume() }
        }
    }

    /// The reader starts a page: the writes whose turn came go.
    func pageStarted() {
        let ready = state.withLock { state in
            state.pagesStarted += 1
            let limit = state.pagesStarted * writesPerPage
            let ready = state.waiting.filter { $0.turn < limit }.map(\.continuation)
            state.waiting.removeAll { $0.turn < limit }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Lets every write go without waiting: the reader stopped.
    func releaseAll() {
        let ready = state.withLock { state in
            state.releasedAll = true
            defer { state.waiting = [] }
            return state.waiting.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Counts one more writer finished.
    func writerFinished() {
        state.withLock { $0.writersFinished += 1 }
    }

    /// Whether every writer finished.
    var allWritersFinished: Bool { state.withLock { $0.writersFinished >= writers } }
}
