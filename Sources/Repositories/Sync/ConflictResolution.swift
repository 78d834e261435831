/// What settled a sync conflict: the policy's decision, in a form a screen can put in one
/// line (``description`` is such a line, in English) and the engine can keep on disk.
public enum ConflictResolution: Codable, Sendable, Hashable, CustomStringConvertible {
    /// This device's change replaced the remote's copy (``ConflictPolicy/lastWriterWins``).
    case localKept
    /// The remote's copy was kept and this device's change dropped
    /// (``ConflictPolicy/serverWins``).
    case remoteKept
    /// The app's closure merged the two (``ConflictPolicy/merge(_:)``).
    case customMerge
    /// One side deleted the entity and the other changed it; the change was kept
    /// (``ConflictPolicy/merge(_:)``, which never loses a change to a deletion).
    case changeKeptOverDeletion(changedOn: ConflictSide)
    /// The fields were merged one by one (``ConflictPolicy/mergeFields(tie:)``), by their
    /// coded names: `localFields` took this device's value (only it changed them),
    /// `remoteFields` the remote's (only it changed them), and `tiedFields` were changed on
    /// both sides to different values, each with the side the tie kept. A field both
    /// changed to the same value is in none of them.
    case mergedByField(localFields: [String], remoteFields: [String], tiedFields: [String: ConflictSide])
    /// The tie of ``ConflictPolicy/mergeFields(tie:)`` kept this device's version whole:
    /// there was no base, or one side deleted the entity (the conflict's `local` or
    /// `remote` is `nil`), or it has no fields to merge.
    case tieTookLocal
    /// The tie of ``ConflictPolicy/mergeFields(tie:)`` kept the remote's version whole, for
    /// the same reasons as ``tieTookLocal``.
    case tieTookRemote

    /// What happened, as one line in English: "merged field by field: notes from this
    /// device; status from the remote".
    public var description: String {
        switch self {
        case .localKept: "this device's change replaced the remote's version"
        case .remoteKept: "the remote's version was kept; this device's change was dropped"
        case .customMerge: "the app's merge combined both versions"
        case .changeKeptOverDeletion(.local): "the remote deleted it; this device's change was kept"
        case .changeKeptOverDeletion(.remote): "this device deleted it; the remote's change was kept"
        case .mergedByField(let local, let remote, let tied): Self.merged(local, remote, tied)
        case .tieTookLocal: "the tie kept this device's version whole"
        case .tieTookRemote: "the tie kept the remote's version whole"
        }
    }

    private static func merged(_ local: [String], _ remote: [String], _ tied: [String: ConflictSide])
        -> String
    {
        var parts: [String] = []
        if !local.isEmpty { parts.append(local.joined(separator: ", ") + " from this device") }
        if !remote.isEmpty { parts.append(remote.joined(separator: ", ") + " from the remote") }
        for side in ConflictSide.allCases {
            let fields = tied.filter { $0.value == side }.keys.sorted()
            guard !fields.isEmpty else { continue }
            let kept = side == .local ? "this device's kept" : "the remote's kept"
            parts.append(fields.joined(separator: ", ") + " changed on both, " + kept)
        }
        guard !parts.isEmpty else { return "merged field by field: both made the same changes" }
        return "merged field by field: " + parts.joined(separator: "; ")
    }
}
