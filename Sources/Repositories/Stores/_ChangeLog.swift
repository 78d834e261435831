import Foundation

/// The change feed of an ``InMemoryRepository``: a number for every write, kept per ID (the
/// latest only), so ``page(after:limit:)`` answers what changed after a number in the order
/// the writes were made, each ID once, and whether it exists now is the store's to say.
///
/// Entries are appended in number order; an ID written again leaves its older entry stale
/// until a compaction drops it, so recording is O(1) amortized and a page is a binary search
/// and a walk. Deleted IDs stay as tombstones until ``forgetDeletions(keepingLast:)``, which
/// makes every cursor from before the newest forgotten one expire.
@usableFromInline
struct _ChangeLog<ID: Hashable> {
    /// Names the store instance in its cursors, so a cursor from another instance (or from
    /// before a restart of a process that rebuilt the store) is refused, never misread.
    let origin = UUID().uuidString
    @usableFromInline var last: UInt64 = 0
    /// Each ID's latest change number.
    @usableFromInline var latest: [ID: UInt64] = [:]
    /// Numbers and IDs in ascending number order, stale ones included.
    @usableFromInline var numbers: [UInt64] = []
    @usableFromInline var ids: [ID] = []
    @usableFromInline var stale = 0
    /// Deleted IDs, oldest deletion first; stale entries are skipped.
    @usableFromInline var deletions: [(number: UInt64, id: ID)] = []
    /// Cursors issued before the latest forgetting and below this number expired: deletions
    /// up to it were forgotten. Each cursor carries the value in force when it was issued.
    var expiredBelow: UInt64 = 0

    @inlinable init() {}

    /// Gives `id` the next change number: it was saved or deleted.
    @inlinable
    mutating func record(_ id: ID) {
        last += 1
        if latest.updateValue(last, forKey: id) != nil { stale += 1 }
        numbers.append(last)
        ids.append(id)
        if stale >= 64 && stale > numbers.count / 2 { compact() }
    }

    /// Records that `id` was deleted, as ``record(_:)``, keeping it among the tombstones.
    @inlinable
    mutating func recordDeletion(_ id: ID) {
        record(id)
        deletions.append((last, id))
    }

    /// Drops the stale entries; O(*n*), run when more than half are stale.
    @usableFromInline
    mutating func compact() {
        var keptNumbers: [UInt64] = []
        var keptIDs: [ID] = []
        keptNumbers.reserveCapacity(latest.count)
        keptIDs.reserveCapacity(latest.count)
        for (number, id) in zip(numbers, ids) where latest[id] == number {
            keptNumbers.append(number)
            keptIDs.append(id)
        }
        numbers = keptNumbers
        ids = keptIDs
        stale = 0
        deletions.removeAll { latest[$0.id] != $0.number }
    }

    /// The IDs changed after `number`, at most `limit`, in change order; the number to ask
    /// from next; and whether changes follow it.
    func page(after number: UInt64, limit: Int) -> (ids: [ID], next: UInt64, hasMore: Bool) {
        var index = firstIndex(after: number)
        var found: [ID] = []
        var next = number
        while index < numbers.count, found.count < limit {
            let (entry, id) = (numbers[index], ids[index])
            if latest[id] == entry { found.append(id) }
            next = entry
            index += 1
        }
        // A stale tail is passed over now, so the next page does not walk it again.
        while index < numbers.count, latest[ids[index]] != numbers[index] {
            next = numbers[index]
            index += 1
        }
        return (found, next, index < numbers.count)
    }

    private func firstIndex(after number: UInt64) -> Int {
        var low = 0
        var high = numbers.count
        while low < high {
            let middle = (low + high) / 2
            if numbers[middle] <= number { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Forgets all but the `count` newest deletions still current; a cursor from before the
    /// newest one forgotten expires. Returns the IDs forgotten.
    mutating func forgetDeletions(keepingLast count: Int) -> [ID] {
        deletions.removeAll { latest[$0.id] != $0.number }
        let forgotten = deletions.dropLast(max(count, 0))
        guard let newest = forgotten.last else { return [] }
        for deletion in forgotten { latest.removeValue(forKey: deletion.id) }
        deletions.removeFirst(forgotten.count)
        expiredBelow = max(expiredBelow, newest.number)
        stale += forgotten.count
        compact()
        return forgotten.map(\.id)
    }

    // MARK: Cursors

    /// The cursor for `number`, which also names the forgetting in force (``expiredBelow``),
    /// so a reader sent back to `nil` by a forgetting can page on below it.
    func cursor(_ number: UInt64) -> SyncCursor { SyncCursor("\(origin):\(expiredBelow):\(number)") }

    /// The number `cursor` stands for (`nil`: 0).
    ///
    /// - Throws: `cursorExpired` when another store issued it, when it is not one of ours,
    ///   or when deletions after it were forgotten since it was issued.
    func number(of cursor: SyncCursor?) throws -> UInt64 {
        guard let cursor else { return 0 }
        let parts = cursor.token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == origin, let issuedUnder = UInt64(parts[1]),
            issuedUnder <= expiredBelow, let number = UInt64(parts[2]), number <= last
        else {
            throw RepositoryError(
                .cursorExpired,
                reason: "The cursor \(cursor.token.prefix(60)) was not issued by this in-memory store",
                recovery: "Read the changes from nil (every entity) and keep the new cursor")
        }
        // A cursor issued since the latest forgetting comes from a read that began after it
        // (from nil, or from a cursor not below it), which never held a forgotten ID.
        guard number >= expiredBelow || issuedUnder == expiredBelow else {
            throw RepositoryError(
                .cursorExpired,
                reason: "The cursor \(cursor.token) is older than the deletions this in-memory store "
                    + "remembers (it forgot those up to change \(expiredBelow))",
                recovery: "Read the changes from nil (every entity) and keep the new cursor")
        }
        return number
    }
}
