import Repositories

extension RepositoryConformance {
    func checkBatches(_ catalog: EntityCatalog<Entity>, into report: inout ConformanceReport) async {
        await verify(.batchIsSavedWhole, catalog, into: &report) { probe in
            try await probe.save(contentsOf: [])
            try await probe.expectAll([], "after an empty batch")
            try await probe.save(contentsOf: [
                probe.entity(1), probe.entity(2), probe.entity(3), probe.entity(2, 1),
            ])
            try await probe.expectAll(
                [probe.entity(1), probe.entity(2, 1), probe.entity(3)],
                "after a batch that repeats #2 (the later wins, in the place of the first)")
            try await probe.save(contentsOf: [probe.entity(3, 2), probe.entity(4)])
            try await probe.expectAll(
                [probe.entity(1), probe.entity(2, 1), probe.entity(3, 2), probe.entity(4)],
                "after a batch that replaces #3 and adds #4")
        }

        if !skipUnless(.atomicBatches, .failedBatchLeavesNothing, into: &report) {
            if let makeUnencodable = options.makeUnencodableEntity {
                var accepted = false
                await verify(.failedBatchLeavesNothing, catalog, into: &report) { probe in
                    let before = probe.entities([1, 2, 3])
                    try await probe.save(contentsOf: before)
                    let batch = [probe.entity(4), probe.entity(2, 1), makeUnencodable(5), probe.entity(6)]
                    do {
                        try await probe.save(contentsOf: batch)
                    } catch {
                        try await probe.expectAll(before, "after a batch that threw \(error)")
                        return
                    }
                    // The store does not encode (it keeps values as they are), so the fault did
                    // not fire; the batch must then be there whole.
                    accepted = true
                    try await probe.expectAll(
                        [
                            probe.entity(1), probe.entity(2, 1), probe.entity(3), probe.entity(4),
                            makeUnencodable(5), probe.entity(6),
                        ],
                        "after a batch with an unencodable entity was accepted")
                }
                if accepted {
                    // The batch was whole, but no fault fired: the law was not proven.
                    report.passed.removeAll { $0 == .failedBatchLeavesNothing }
                    skip(
                        .failedBatchLeavesNothing,
                        "the store accepted an unencodable entity (it does not encode), so no batch could be made to fail; the batch was checked to be whole, and batchesAreNeverSeenTorn covers its atomicity under concurrency",
                        into: &report)
                }
            } else {
                skip(
                    .failedBatchLeavesNothing,
                    "no ConformanceOptions.makeUnencodableEntity was given to make a batch fail",
                    into: &report)
            }
        }

        if !skipUnless(.atomicBatches, .cancelledBatchIsAllOrNothing, into: &report) {
            await verify(.cancelledBatchIsAllOrNothing, catalog, into: &report) { probe in
                try await probe.save(1)
                var expected = [probe.entity(1)]
                var landedThoughCancelled = 0
                defer {
                    if landedThoughCancelled > 0 {
                        probe.note(
                            "\(landedThoughCancelled) cancelled batch(es) landed whole although the call threw"
                        )
                    }
                }
                // Cancel at several moments, from before the batch starts to well into it,
                // so a store that stops partway through a batch is caught in the act.
                for (attempt, yields) in [0, 1, 2, 4, 8, 16, 32, 64, 128].enumerated() {
                    let batch = probe.entities(Array((100 + attempt * 100)..<(200 + attempt * 100)))
                    let repository = probe.repository
                    let task = Task { try await repository.save(contentsOf: batch) }
                    for _ in 0..<yields { await Task.yield() }
                    task.cancel()
                    let outcome = await task.result
                    probe.note("save(contentsOf: 100 entities) cancelled after \(yields) yields → \(outcome)")
                    let all = try await probe.fetchAll()
                    let whole = expected + batch
                    switch outcome {
                    case .success:
                        try probe.expectSame(all, whole, what: "fetchAll()", "after a batch that returned")
                    case .failure:
                        // A call cancelled in flight may have landed (a request already sent
                        // cannot be called back); whole or nothing is the law.
                        if probe.ordered ? all == whole : probe.sameMembers(all, whole) {
                            landedThoughCancelled += 1
                        } else {
                            try probe.expectSame(
                                all, expected, what: "fetchAll()",
                                "after a batch cancelled after \(yields) yields threw (neither whole nor nothing)"
                            )
                            continue
                        }
                    }
                    expected = whole
                }
            }
        }
    }
}
