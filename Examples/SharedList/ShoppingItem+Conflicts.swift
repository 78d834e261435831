import Repositories

extension ShoppingItem {
    /// How the list settles two devices' edits of one item: field by field
    /// (`.mergeFields`), so a field only one device changed since the version it edited keeps
    /// that device's edit. A field both changed, to different values, is a tie:
    ///
    /// | field | both changed it |
    /// |---|---|
    /// | `quantity` | the larger wins: nobody's "buy more" is lost |
    /// | any other (`name`, `note`, `isBought`) | the API's value: the device that synced first |
    ///
    /// The API's version whole, too, when there is no base to compare with (both devices
    /// created the item) or one side deleted it. Each conflict's record
    /// (`SyncConflict.resolution`) says which side each field came from, so an edit that gave
    /// way is named there: "merged field by field: note changed on both, the remote's kept".
    static let conflictPolicy = ConflictPolicy<ShoppingItem>.mergeFields(
        tie: .custom { field, _, mine, theirs in
            guard field == "quantity", let mine, let theirs else { return .remote }
            return mine.quantity > theirs.quantity ? .local : .remote
        })
}
