extension RemoteFirstRepository {
    /// The stale-while-revalidate read of one entity: the local copy at once, then the
    /// remote's answer, each tagged with its origin and age.
    ///
    /// With ``ReadPolicy/remoteFirst`` or ``ReadPolicy/localFirst``, the stream yields the
    /// local copy first when the local store has one (its ``Sourced/age`` is the time since
    /// this process last made it agree with the remote, or `nil` when unknown), then reads
    /// the remote, mirrors its answer and yields it (age zero, `nil` value when the remote
    /// has none), then finishes. A local read failure is reported to `onTierFailure` and
    /// skipped; a remote failure ends the stream by throwing, after the local copy, if any,
    /// was yielded. With ``ReadPolicy/localOnly`` it yields the local answer (even `nil`)
    /// and finishes; with ``ReadPolicy/remoteOnly`` only the remote's.
    ///
    /// When the consumer stops iterating or its task is cancelled, the stream ends and the
    /// remote call in progress is cancelled.
    public func values(id: ID) -> AsyncThrowingStream<Sourced<Entity?>, any Error> {
        sourcedStream(
            localOnly: { [local] in try await local.fetch(id: id) },
            localCopy: { try await localCopy(id) },
            localAge: { ages.age(of: id) },
            remote: { try await fetchRemote(id) })
    }

    /// The stale-while-revalidate read of the whole collection: the local collection at
    /// once, then the remote's, each tagged with its origin and age.
    ///
    /// It behaves as ``values(id:)`` does, with "has a copy" meaning a non-empty local
    /// collection (less the copies known to be stale); the remote's answer replaces the local
    /// collection as ``fetchAll()`` does.
    public func valuesAll() -> AsyncThrowingStream<Sourced<[Entity]>, any Error> {
        sourcedStream(
            localOnly: { [local] in try await local.fetchAll() },
            localCopy: { try await localCollection(.fetchAll).flatMap { $0.isEmpty ? nil : $0 } },
            localAge: { ages.ageOfWhole() },
            remote: { try await fetchAllRemote() })
    }

    private func sourcedStream<Value: Sendable>(
        localOnly: @escaping @Sendable () async throws -> Value,
        localCopy: @escaping @Sendable () async throws -> Value?,
        localAge: @escaping @Sendable () -> Duration?,
        remote: @escaping @Sendable () async throws -> Value
    ) -> AsyncThrowingStream<Sourced<Value>, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Sourced<Value>.self)
        let policy = readPolicy
        let task = Task {
            do {
                switch policy {
                case .localOnly:
                    continuation.yield(Sourced(try await localOnly(), origin: .local, age: localAge()))
                case .remoteOnly:
                    continuation.yield(Sourced(try await remote(), origin: .remote, age: .zero))
                case .remoteFirst, .localFirst:
                    if let copy = try await localCopy() {
                        continuation.yield(Sourced(copy, origin: .local, age: localAge()))
                    }
                    continuation.yield(Sourced(try await remote(), origin: .remote, age: .zero))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
