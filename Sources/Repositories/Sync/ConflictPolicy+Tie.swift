extension ConflictPolicy {
    /// Which side wins what both sides changed, under ``ConflictPolicy/mergeFields(tie:)``:
    /// a top-level field both changed to different values, or the whole entity when there
    /// are no fields to merge (no base, or one side deleted it).
    ///
    /// ```swift
    /// .mergeFields(tie: .remote)  // the remote's value of a field both changed
    /// .mergeFields(tie: .custom { field, base, local, remote in
    ///     field == "notes" ? .local : .remote  // this device's notes, the remote's rest
    /// })
    /// ```
    public struct Tie: Sendable {
        /// Asked once per tied field, or once for the whole entity (`field` is `nil`).
        let choose:
            @Sendable (_ field: String?, _ base: Entity?, _ local: Entity?, _ remote: Entity?) -> ConflictSide

        /// The remote's value wins: this device gives way on what both changed, and keeps
        /// its edits to the fields only it changed.
        public static var remote: Tie { Tie { _, _, _, _ in .remote } }

        /// This device's value wins: what it changed replaces what the remote changed too.
        public static var local: Tie { Tie { _, _, _, _ in .local } }

        /// `choose` names the side that wins each tie.
        ///
        /// - Parameter choose: given the tied field's coded name (`"notes"`, a `CodingKey`'s
        ///   string value) and the three versions, returns the side whose value to keep.
        ///   `field` is `nil` when the whole entity is at stake: the base is `nil` (the device
        ///   had none), or `local` or `remote` is `nil` (that side deleted it), or the entity
        ///   does not encode as an object of fields, or the merged fields do not decode. It
        ///   runs during a sync, once per tie, and must not block.
        public static func custom(
            _ choose:
                @escaping @Sendable (
                    _ field: String?, _ base: Entity?, _ local: Entity?, _ remote: Entity?
                ) -> ConflictSide
        ) -> Tie {
            Tie(choose: choose)
        }
    }
}
