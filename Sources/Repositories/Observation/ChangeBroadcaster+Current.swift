extension ChangeBroadcaster {
    /// A stream of the value `read` gives now, then again after every signal sent: for a
    /// badge or a list that shows the current state and follows it.
    ///
    /// The value is read by the stream's own task when the consumer is ready for it, not by
    /// the writer that sends the signal: a write costs one signal, whatever the value's
    /// size, and signals that pile up while the consumer is busy are folded into one read,
    /// made after the last of them, so the consumer always ends on the current state. The
    /// stream ends when `read` throws (the store behind it closed or unreadable), which
    /// tells the consumer.
    func readOnEverySignal<Value: Sendable>(_ read: @escaping @Sendable () async throws -> Value)
        -> AsyncStream<Value>
    {
        // Subscribed before the first read, so a change made meanwhile is read again after.
        let signals = subscribe(bufferingPolicy: .bufferingNewest(1))
        let (stream, continuation) = AsyncStream.makeStream(
            of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            do {
                continuation.yield(try await read())
                for await _ in signals { continuation.yield(try await read()) }
            } catch {
                // The end of the stream says it: the store can no longer be read.
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
