import Repositories

/// One edit a device made to the shared list offline: which item, which field (its coded
/// name, as a conflict record names it), and the change. The story makes each, then accounts
/// for each: kept in the list the syncs end with, or given way and named by a conflict
/// record.
struct ListEdit: Sendable {
    /// The device that made the edit, such as `phone`.
    let device: String
    /// The item edited.
    let itemID: Int
    /// The field the edit changes, by its coded name: `quantity`.
    let field: String
    /// The edit in a few words: `Apples ×6 -> ×8`.
    let label: String
    /// Makes the edit on a copy of the item.
    let change: @Sendable (inout ShoppingItem) -> Void

    /// A record of a conflict, with the device whose sync settled it and keeps it.
    typealias Record = (device: String, conflict: SyncConflict<ShoppingItem>)

    /// The edits of the story, in the order the devices make them: Milk in different
    /// fields, Apples and Bread in the same field.
    static let offline = [
        ListEdit(device: "phone", itemID: 1, field: "quantity", label: "Milk ×1 -> ×2") { $0.quantity = 2 },
        ListEdit(device: "phone", itemID: 3, field: "quantity", label: "Apples ×6 -> ×8") { $0.quantity = 8 },
        ListEdit(device: "phone", itemID: 2, field: "note", label: "Bread: note \"rye\"") { $0.note = "rye" },
        ListEdit(device: "laptop", itemID: 1, field: "isBought", label: "Milk bought") { $0.isBought = true },
        ListEdit(device: "laptop", itemID: 3, field: "quantity", label: "Apples ×6 -> ×10") {
            $0.quantity = 10
        },
        ListEdit(device: "laptop", itemID: 2, field: "note", label: "Bread: note \"sliced\"") {
            $0.note = "sliced"
        },
    ]

    /// Whether `item` holds this edit: making it again changes nothing.
    func isIn(_ item: ShoppingItem?) -> Bool {
        guard var edited = item else { return false }
        change(&edited)
        return edited == item
    }

    /// The record among `records` that names this edit as one that gave way: a record of
    /// its item that kept the other side's value of its field, and whose version from this
    /// edit's side holds the edit.
    func namedBy(_ records: [Record]) -> Record? {
        records.first { record in
            guard record.conflict.entityID == itemID else { return false }
            // The edit is the record's local side when the device that settled it made it.
            let madeHere = record.device == device
            let side: ConflictSide = madeHere ? .local : .remote
            guard let kept = Self.keptSide(of: field, by: record.conflict.resolution), kept != side else {
                return false
            }
            return isIn(madeHere ? record.conflict.local : record.conflict.remote)
        }
    }

    /// The side whose value of `field` `resolution` kept, when it says; `nil` when `field`
    /// was no tie (only one side changed it, or both alike) or the rule keeps no side.
    private static func keptSide(of field: String, by resolution: ConflictResolution) -> ConflictSide? {
        switch resolution {
        case .mergedByField(_, _, let tied): tied[field]
        case .localKept, .tieTookLocal: .local
        case .remoteKept, .tieTookRemote: .remote
        case .customMerge, .changeKeptOverDeletion: nil
        }
    }
}
