extension InMemoryRepository: IdempotentWriteRepository {
    /// Applies `write` unless `idempotencyKey` was applied before, under the store's one lock,
    /// so the key and the write are kept together; the keys live as long as the repository.
    ///
    /// - Complexity: O(1) amortized.
    public func apply(_ write: KeyedWrite<Entity, ID>, idempotencyKey: String, fingerprint: String)
        async throws
        -> KeyedWriteResult<Entity>
    {
        storage.withLock { state in
            if let first = state.appliedKeys[idempotencyKey] {
                return KeyedWriteResult(
                    outcome: first.outcome, stored: first.stored, replayed: true,
                    fingerprint: first.fingerprint)
            }
            let result: KeyedWriteResult<Entity>
            switch write {
            case .save(let entity):
                let outcome: KeyedWriteOutcome = state.contains(entity.id) ? .replaced : .created
                state.upsert(entity)
                result = KeyedWriteResult(
                    outcome: outcome, stored: entity, replayed: false, fingerprint: fingerprint)
            case .create(let entity):
                if state.contains(entity.id) {
                    result = KeyedWriteResult(
                        outcome: .alreadyExists, stored: nil, replayed: false, fingerprint: fingerprint)
                } else {
                    state.upsert(entity)
                    result = KeyedWriteResult(
                        outcome: .created, stored: entity, replayed: false, fingerprint: fingerprint)
                }
            case .delete(let id):
                let outcome: KeyedWriteOutcome = state.contains(id) ? .deleted : .absent
                state.remove(id)
                result = KeyedWriteResult(
                    outcome: outcome, stored: nil, replayed: false, fingerprint: fingerprint)
            }
            state.appliedKeys[idempotencyKey] = (result.outcome, result.stored, fingerprint)
            return result
        }
    }
}
