import Foundation
import Repositories
import RepositoriesTestSupport
import Testing

/// What an offline-first child process (`offline-first-sqlite`) said before it was killed: the
/// writes it acknowledged, the ones a kill may have caught half way, the highest ID it
/// touched and how often it synced. An ID's state is its revision, or `nil` for deleted.
struct OfflineFirstTranscript {
    /// The state each acknowledged write left, by ID.
    var acknowledged: [Int: Int?] = [:]
    /// The state each announced write that did not return would leave, by ID.
    var inFlight: [Int: Int?] = [:]
    /// The highest ID a write was announced for; -1 for none.
    var highestID = -1
    /// How many syncs returned.
    var synced = 0

    /// The transcript of `lines`: `try save ID REVISION`, `try delete ID`, `saved ID REVISION`,
    /// `deleted ID`, `synced`.
    init(_ lines: [String]) {
        for line in lines {
            let words = line.split(separator: " ").map(String.init)
            switch words.first {
            case "try" where words.count >= 3:
                guard let id = Int(words[2]) else { continue }
                inFlight.updateValue(words[1] == "save" ? Int(words[3]) : nil, forKey: id)
                highestID = max(highestID, id)
            case "saved" where words.count == 3:
                guard let id = Int(words[1]) else { continue }
                acknowledged.updateValue(Int(words[2]), forKey: id)
                inFlight.removeValue(forKey: id)
            case "deleted" where words.count == 2:
                guard let id = Int(words[1]) else { continue }
                acknowledged.updateValue(nil, forKey: id)
                inFlight.removeValue(forKey: id)
            case "synced": synced += 1
            default: continue
            }
        }
    }
}

/// The checks after a kill, before any sync, of a device whose outbox is in its SQLite
/// database: every pending change is what the local store shows (nothing split), every
/// acknowledged write not `contested` by another client is there (or the write the kill
/// caught, made whole), and a write caught half way is there whole or not at all.
func expectNothingSplitOrLost(
    pending: [PendingChange<FixtureEntity>], rows: [Int: FixtureEntity], acknowledged: [Int: Int?],
    inFlight: [Int: Int?], contested: Set<Int>, round: Int
) {
    for change in pending {
        switch change.kind {
        case .save(let entity):
            #expect(rows[change.id] == entity, "round \(round): the change to \(change.id) and its row split")
        case .delete:
            #expect(rows[change.id] == nil, "round \(round): the delete of \(change.id) and its row split")
        }
    }
    for (id, state) in acknowledged where !contested.contains(id) {
        let here = rows[id].map { $0.revision ?? -1 }
        let allowed: [Int?] = [state] + (inFlight[id].map { [$0] } ?? [])
        #expect(
            allowed.contains(here),
            "round \(round): \(id) holds \(String(describing: here)), acknowledged \(String(describing: state))"
        )
    }
    for (id, state) in inFlight where acknowledged[id] == nil {
        let here = rows[id].map { $0.revision ?? -1 }
        let whole: [Int?] = [nil, state]
        #expect(whole.contains(here), "round \(round): \(id) half-written")
    }
}

/// The check after a sync: the remote holds every acknowledged write not `contested` by
/// another client, as acknowledged.
func expectRemoteHoldsAcknowledged(
    _ stored: [Int: FixtureEntity], acknowledged: [Int: Int?], contested: Set<Int>, round: Int
) {
    for (id, state) in acknowledged where !contested.contains(id) {
        #expect(
            stored[id].map { $0.revision ?? -1 } == state,
            "round \(round): the remote holds \(id) as \(String(describing: stored[id]?.revision)), acknowledged \(String(describing: state))"
        )
    }
}
