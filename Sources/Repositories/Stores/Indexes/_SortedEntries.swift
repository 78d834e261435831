/// One field's index: `(value, slot)` pairs kept sorted by value, then by slot (the
/// entity's place in insertion order), in blocks of at most ``maximumBlock`` entries, so
/// an insert or a removal moves at most a block's worth, and finding a value is two binary
/// searches.
///
/// - Complexity: insert, remove and lower bound O(log *n* + ``maximumBlock``); walking *k*
///   entries from a position O(*k*).
@usableFromInline
struct _SortedEntries {
    /// One indexed entity: its field's value and its slot.
    @usableFromInline
    struct Entry {
        @usableFromInline var key: FieldValue
        @usableFromInline var slot: Int

        @usableFromInline init(key: FieldValue, slot: Int) {
            self.key = key
            self.slot = slot
        }

        func precedes(_ other: Entry) -> Bool {
            key < other.key || (key == other.key && slot < other.slot)
        }
    }

    /// A place between entries: before the entry at `offset` in block `block`.
    struct Position: Comparable {
        var block: Int
        var offset: Int

        static func < (lhs: Position, rhs: Position) -> Bool {
            (lhs.block, lhs.offset) < (rhs.block, rhs.offset)
        }
    }

    static var maximumBlock: Int { 1_024 }

    private(set) var blocks: [[Entry]] = []
    private(set) var count = 0

    init() {}

    /// An index holding `entries`, which must be sorted by key, then slot: blocks half full,
    /// so the inserts that follow rarely split one.
    init(sorted entries: [Entry]) {
        let size = Self.maximumBlock / 2
        blocks = stride(from: 0, to: entries.count, by: size).map {
            Array(entries[$0..<min($0 + size, entries.count)])
        }
        count = entries.count
    }

    var start: Position { Position(block: 0, offset: 0) }
    var end: Position { Position(block: blocks.count, offset: 0) }

    /// The first position whose entry `isAtOrAfter` holds for; entries must be partitioned
    /// by it (false, then true).
    func partitionPoint(_ isAtOrAfter: (Entry) -> Bool) -> Position {
        var low = 0
        var high = blocks.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrAfter(blocks[middle][blocks[middle].count - 1]) {
                high = middle
            } else {
                low = middle + 1
            }
        }
        guard low < blocks.count else { return end }
        let block = blocks[low]
        var first = 0
        var last = block.count
        while first < last {
            let middle = (first + last) / 2
            if isAtOrAfter(block[middle]) { last = middle } else { first = middle + 1 }
        }
        return Position(block: low, offset: first)
    }

    /// The first position whose key is `key` or after it.
    func lowerBound(_ key: FieldValue) -> Position {
        partitionPoint { !($0.key < key) }
    }

    /// The first position whose key is after `key`.
    func upperBound(_ key: FieldValue) -> Position {
        partitionPoint { key < $0.key }
    }

    /// How many entries lie between `lower` and `upper`.
    func distance(from lower: Position, to upper: Position) -> Int {
        guard lower < upper else { return 0 }
        if lower.block == upper.block { return upper.offset - lower.offset }
        var total = blocks[lower.block].count - lower.offset
        for block in (lower.block + 1)..<upper.block { total += blocks[block].count }
        return total + upper.offset
    }

    /// How many entries lie in `ranges`.
    func count(in ranges: [Range<Position>]) -> Int {
        ranges.reduce(0) { $0 + distance(from: $1.lowerBound, to: $1.upperBound) }
    }

    /// The entry at `position`, which must be before ``end``.
    subscript(position: Position) -> Entry {
        blocks[position.block][position.offset]
    }

    /// The position after `position`.
    func after(_ position: Position) -> Position {
        position.offset + 1 < blocks[position.block].count
            ? Position(block: position.block, offset: position.offset + 1)
            : Position(block: position.block + 1, offset: 0)
    }

    /// The position before `position`, which must be after ``start``.
    func before(_ position: Position) -> Position {
        position.offset > 0
            ? Position(block: position.block, offset: position.offset - 1)
            : Position(block: position.block - 1, offset: blocks[position.block - 1].count - 1)
    }

    @usableFromInline
    mutating func insert(_ entry: Entry) {
        count += 1
        guard !blocks.isEmpty else {
            blocks.append([entry])
            return
        }
        var position = partitionPoint { entry.precedes($0) }
        if position.block == blocks.count {
            position = Position(block: blocks.count - 1, offset: blocks[blocks.count - 1].count)
        }
        blocks[position.block].insert(entry, at: position.offset)
        if blocks[position.block].count > Self.maximumBlock {
            let upperHalf = Array(blocks[position.block][(Self.maximumBlock / 2)...])
            blocks[position.block].removeSubrange((Self.maximumBlock / 2)...)
            blocks.insert(upperHalf, at: position.block + 1)
        }
    }

    /// Removes `entry` (equal key and slot); returns whether it was there.
    @usableFromInline @discardableResult
    mutating func remove(_ entry: Entry) -> Bool {
        let position = partitionPoint { !$0.precedes(entry) }
        guard position < end, self[position].slot == entry.slot, self[position].key == entry.key else {
            return false
        }
        count -= 1
        blocks[position.block].remove(at: position.offset)
        if blocks[position.block].isEmpty { blocks.remove(at: position.block) }
        return true
    }

    @usableFromInline
    mutating func removeAll() {
        blocks.removeAll()
        count = 0
    }

    /// Replaces each entry's slot by `newSlot[slot]`, an order-keeping renumbering.
    @usableFromInline
    mutating func renumber(_ newSlot: [Int]) {
        for block in blocks.indices {
            for offset in blocks[block].indices {
                blocks[block][offset].slot = newSlot[blocks[block][offset].slot]
            }
        }
    }
}
