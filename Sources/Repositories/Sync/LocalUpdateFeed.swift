import Synchronization

/// Hands each ``LocalUpdate`` to every snapshot stream: queued first, while the write that
/// made it still counts as under way, then a wake-up once it has ended, so a stream that
/// wakes, finds no write under way and takes its queue holds every finished write's update.
final class LocalUpdateFeed<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    /// One stream's queue of updates and its wake-ups.
    final class Subscription: Sendable {
        private let queue = Mutex<[LocalUpdate<Entity>]>([])
        /// Wakes the stream; wake-ups sent while it is busy are folded into one.
        let wakeUps: AsyncStream<Void>
        fileprivate let continuation: AsyncStream<Void>.Continuation

        fileprivate init() {
            (wakeUps, continuation) = AsyncStream.makeStream(
                of: Void.self, bufferingPolicy: .bufferingNewest(1))
        }

        /// The updates queued since the last take, oldest first.
        func take() -> [LocalUpdate<Entity>] {
            queue.withLock { queue in
                defer { queue = [] }
                return queue
            }
        }

        /// Ends the subscription: its stream of wake-ups finishes and the feed forgets it,
        /// so a stream that ended (its consumer gone, or a read failed) keeps no queue.
        func end() {
            continuation.finish()
        }

        fileprivate func enqueue(_ update: LocalUpdate<Entity>) {
            queue.withLock { queue in
                // Reading again covers every update before it: the queue stays short
                // however long the stream is busy.
                if case .reread = update { queue.removeAll() }
                queue.append(update)
            }
        }
    }

    private let subscribers = Mutex<[ObjectIdentifier: Subscription]>([:])

    /// How many streams are subscribed.
    var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// A queue of every update from now on; it is dropped when its stream of wake-ups ends.
    func subscribe() -> Subscription {
        let subscription = Subscription()
        let key = ObjectIdentifier(subscription)
        subscribers.withLock { $0[key] = subscription }
        subscription.continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: key) }
        }
        return subscription
    }

    /// Queues `update` for every stream without waking them: the write that made it is
    /// still under way, and a stream woken now would find it so and wait for the next wake.
    func enqueue(_ update: LocalUpdate<Entity>) {
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.enqueue(update) }
    }

    /// Wakes every stream to take its queue.
    func wake() {
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.continuation.yield() }
    }

    /// Queues `update` and wakes every stream.
    func send(_ update: LocalUpdate<Entity>) {
        enqueue(update)
        wake()
    }
}
