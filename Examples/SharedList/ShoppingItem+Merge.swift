extension ShoppingItem {
    /// The item two devices' edits make together, field by field (a three-way merge):
    /// a field only one side changed since `base` takes that side's value; a field both
    /// changed, to different values, is settled by its own rule:
    ///
    /// | field | both changed it |
    /// |---|---|
    /// | `quantity` | the larger: nobody's "buy more" is lost |
    /// | `note` | both notes, the remote's first: `rye; sliced` |
    /// | `name` | the remote's: the device that synced first named it |
    /// | `isBought` | bought when either says so (with a `base`, both changing the flag means both set it alike) |
    ///
    /// With no `base` (this device created the item the remote also has), every field that
    /// differs counts as changed by both. The result does not depend on which device syncs
    /// first, except for `name` and the order of the notes.
    ///
    /// - Parameters:
    ///   - base: the version this device's change was made on, `nil` when it had none.
    ///   - mine: this device's version.
    ///   - theirs: the remote's current version, changed by another device since `base`.
    static func merged(base: ShoppingItem?, mine: ShoppingItem, theirs: ShoppingItem) -> ShoppingItem {
        var merged = theirs
        merged.name = pick(base?.name, mine.name, theirs.name) { _, theirs in theirs }
        merged.quantity = pick(base?.quantity, mine.quantity, theirs.quantity) { max($0, $1) }
        merged.isBought = pick(base?.isBought, mine.isBought, theirs.isBought) { $0 || $1 }
        merged.note = pick(base?.note, mine.note, theirs.note) { mine, theirs in
            [theirs, mine].filter { !$0.isEmpty }.joined(separator: "; ")
        }
        return merged
    }

    /// One field of the merge: the side that changed it since `base`, or `bothChanged`'s
    /// answer when both did.
    private static func pick<Value: Equatable>(
        _ base: Value?, _ mine: Value, _ theirs: Value, bothChanged: (_ mine: Value, _ theirs: Value) -> Value
    ) -> Value {
        if mine == theirs { return mine }
        if mine == base { return theirs }
        if theirs == base { return mine }
        return bothChanged(mine, theirs)
    }
}
