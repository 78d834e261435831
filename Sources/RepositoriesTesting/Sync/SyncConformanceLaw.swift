/// A law of offline-first sync that ``SyncConformance`` checks after every random sequence.
public enum SyncConformanceLaw: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// With every device online (after ``SyncConformanceOptions/beforeFinalSync``), each
    /// device's final `sync()` succeeds and leaves no change pending.
    case finalSyncsSucceed
    /// After the final syncs, every device holds exactly the remote's entities, except the
    /// IDs it holds a rejected change for.
    case devicesAgree
    /// The remote holds, for each ID, what the last write it acknowledged left there.
    case remoteKeepsWhatItAcknowledged
    /// Every change a device acknowledged is applied (the remote took it, and holds it or
    /// took a later change to its ID), superseded (a later change or a merge of it on that
    /// device, or the remote's version under the policy), or rejected and visible
    /// (`status(of:)` is `.rejected`).
    case acknowledgedChangesAreAccountedFor
    /// Under `.merge`, an ID whose last event was a merge holds the merge closure's result
    /// everywhere.
    case mergesAreKept

    /// The law's name.
    public var description: String { rawValue }
}
