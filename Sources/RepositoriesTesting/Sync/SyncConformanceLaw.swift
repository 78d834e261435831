/// A law of offline-first sync that ``SyncConformance`` checks after every random sequence.
public enum SyncConformanceLaw: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// With every device online (after ``SyncConformanceOptions/beforeFinalSync``), each
    /// device's final `sync()` succeeds and leaves no change pending.
    case finalSyncsSucceed
    /// After the final syncs, every device holds exactly the remote's entities, except the
    /// IDs it holds a rejected change for.
    case devicesAgree
    /// The remote holds, for each ID, what the last write it applied left there (with
    /// ``SyncConformanceOptions/normalize`` applied): a write whose answer was lost counts,
    /// one that was refused before anything was applied does not.
    case remoteKeepsWhatItAcknowledged
    /// Every change a device acknowledged is applied (the remote applied it, whether or not
    /// its answer arrived, and holds it or applied a later change to its ID), superseded (a later change or a merge of it on that
    /// device, or the remote's version under the policy), or rejected and visible
    /// (`status(of:)` is `.rejected`).
    case acknowledgedChangesAreAccountedFor
    /// Under `.merge`, an ID whose last event was a merge holds the merge closure's result
    /// everywhere.
    case mergesAreKept
    /// Counting at the remote, every change a device made (a write it acknowledged, or a
    /// merge's result) is applied at most once, however many requests and idempotency keys it
    /// went out under; and a change whose write the remote answered as done (a replayed key's
    /// answer included) was applied exactly once, not answered from another request's key.
    case changesAreAppliedOnce

    /// The law's name.
    public var description: String { rawValue }
}
