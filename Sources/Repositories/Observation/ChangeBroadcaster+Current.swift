extension ChangeBroadcaster {
    /// A stream of the value `read` gives now, then of every element sent after: for a badge
    /// or a list that shows the current state and follows it. Elements that pile up while
    /// the consumer is busy are folded into the newest. The stream ends when `read` throws
    /// (the store behind it closed or unreadable), which tells the consumer.
    func currentThenUpdates(_ read: @escaping @Sendable () async throws -> Element) -> AsyncStream<Element> {
        let updates = subscribe(bufferingPolicy: .bufferingNewest(1))
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            do {
                continuation.yield(try await read())
            } catch {
                continuation.finish()
                return
            }
            for await element in updates { continuation.yield(element) }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
