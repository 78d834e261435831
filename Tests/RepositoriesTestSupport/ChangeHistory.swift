/// What a crash child said it began and what it acknowledged, per entity, across rounds,
/// read from its `begin save ID REVISION`, `begin delete ID`, `ack …` lines.
public struct ChangeHistory {
    /// A change: a save of a revision, or a delete.
    public enum Change: Hashable, CustomStringConvertible {
        case save(Int)
        case delete

        /// The change in words, for a test's message.
        public var description: String {
            switch self {
            case .save(let revision): "revision \(revision)"
            case .delete: "deleted"
            }
        }
    }

    /// The last acknowledged change of each ID.
    public private(set) var acknowledged: [Int: Change] = [:]
    /// The changes begun after an ID's last acknowledged one and never acknowledged: the
    /// kill caught them, so each may or may not have survived.
    public private(set) var unacknowledged: [Int: [Change]] = [:]
    /// Every change begun, acknowledged or not, by ID.
    public private(set) var begun: [Int: Set<Change>] = [:]
    /// The first ID the next child uses for new entities.
    public private(set) var nextID = 0
    /// One more than the greatest revision (or change number) any line named.
    public private(set) var nextRevision = 0

    /// No change read yet.
    public init() {}

    /// Reads a child's lines and returns the changes they acknowledged, in order.
    @discardableResult
    public mutating func read(_ lines: [String]) -> [(id: Int, change: Change)] {
        var acknowledgedNow: [(id: Int, change: Change)] = []
        for line in lines {
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 3, let id = Int(words[2]) else { continue }
            let revision = words.count >= 4 ? Int(words[3]) : nil
            let change: Change = words[1] == "delete" ? .delete : .save(revision ?? 0)
            nextID = max(nextID, id + 1)
            nextRevision = max(nextRevision, (revision ?? 0) + 1)
            if words[0] == "begin" {
                begun[id, default: []].insert(change)
                unacknowledged[id, default: []].append(change)
            } else if words[0] == "ack" {
                acknowledged[id] = change
                unacknowledged[id] = nil
                acknowledgedNow.append((id, change))
            }
        }
        return acknowledgedNow
    }

    /// What is wrong with what the server holds (`.save(revision)` by ID, absent IDs left
    /// out): an acknowledged change missing or replaced by an older one, or an entity no
    /// change began.
    public func check(server held: [Int: Change]) -> [String] {
        var problems: [String] = []
        for id in begun.keys.sorted() {
            let now = held[id]
            var allowed = unacknowledged[id] ?? []
            allowed.append(acknowledged[id] ?? .delete)
            let matches = allowed.contains { change in change == .delete ? now == nil : now == change }
            if !matches {
                problems.append(
                    "entity \(id) is \(now?.description ?? "absent") on the server; acknowledged: \(acknowledged[id]?.description ?? "nothing"), in flight at the kill: \(unacknowledged[id] ?? [])"
                )
            }
        }
        for id in held.keys.sorted() where begun[id] == nil {
            problems.append("the server holds entity \(id), which no change began")
        }
        return problems
    }
}

/// The changes a server applied, in the order it applied them, counted per change (an
/// entity's revision, or its delete), not per idempotency key: a change sent again under
/// another key, or applied again under its own, counts twice.
public struct AppliedChanges {
    /// Every application, in order.
    public private(set) var applications: [(id: Int, change: ChangeHistory.Change)] = []
    private var counts: [Int: [ChangeHistory.Change: Int]] = [:]

    /// No application counted yet.
    public init() {}

    /// Counts one more application.
    public mutating func append(id: Int, _ change: ChangeHistory.Change) {
        applications.append((id, change))
        counts[id, default: [:]][change, default: 0] += 1
    }

    /// How many times `change` of `id` was applied.
    public func count(id: Int, _ change: ChangeHistory.Change) -> Int {
        counts[id]?[change] ?? 0
    }

    /// What is wrong with the applications, given what the child began: a change applied
    /// more than once, an entity's changes applied out of the order made, a change after an
    /// entity's delete, or a change no one began.
    public func problems(against history: ChangeHistory) -> [String] {
        var problems: [String] = []
        var byID: [Int: [ChangeHistory.Change]] = [:]
        for (id, change) in applications { byID[id, default: []].append(change) }
        for (id, applied) in byID.sorted(by: { $0.key < $1.key }) {
            for (change, count) in counts[id] ?? [:] where count > 1 {
                problems.append("entity \(id)'s change \(change) was applied \(count) times")
            }
            let saves = applied.prefix { $0 != .delete }.compactMap { change -> Int? in
                if case .save(let revision) = change { return revision }
                return nil
            }
            if saves != saves.sorted() {
                problems.append("entity \(id)'s changes were applied as \(applied), not in the order made")
            }
            if let delete = applied.firstIndex(of: .delete), delete < applied.count - 1 {
                problems.append("entity \(id) was changed again after its delete: \(applied)")
            }
            for change in Set(applied) where history.begun[id]?.contains(change) != true {
                problems.append("entity \(id)'s change \(change) was applied, but no change began it")
            }
        }
        return problems
    }
}
