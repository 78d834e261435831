import Repositories

/// What a ``PostgresRepository``'s ``SyncCursor`` stands for: the feed that issued it, the
/// snapshot whose committed writes the reader has, and, in the middle of a batch, the
/// batch's snapshot and the last log entry delivered.
///
/// A batch is the set of log entries committed between two snapshots: visible in the
/// batch's, not in the cursor's. It is fixed once the batch's snapshot is taken (an entry
/// rewritten since moves out of it, into the next batch), so paging through it in
/// `(xid, change)` order skips nothing, however the writers' transactions interleaved.
///
/// Token: `<origin>/<snapshot>` between batches, `<origin>/<snapshot>/<batch>/<xid>/<change>`
/// within one; snapshots as PostgreSQL writes a `pg_snapshot` (`xmin:xmax:xip,…`).
struct PostgresFeedCursor: Equatable {
    /// A `pg_snapshot`: transactions below `xmin` have ended, those from `xmax` on had not
    /// started, and those in `running` were running.
    struct Snapshot: Equatable {
        var xmin: UInt64
        var xmax: UInt64
        var running: [UInt64]

        /// The snapshot that sees no transaction: the cursor of a reader that has nothing.
        static let nothing = Snapshot(xmin: 1, xmax: 1, running: [])

        /// Parses `text` as PostgreSQL writes a snapshot; `nil` when it is not one.
        init?(_ text: Substring) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3, let xmin = Self.xid(parts[0]), let xmax = Self.xid(parts[1]), xmin <= xmax
            else { return nil }
            var running: [UInt64] = []
            if !parts[2].isEmpty {
                for part in parts[2].split(separator: ",", omittingEmptySubsequences: false) {
                    guard let xid = Self.xid(part), (xmin..<xmax).contains(xid),
                        running.last.map({ $0 < xid }) ?? true
                    else { return nil }
                    running.append(xid)
                }
            }
            self.init(xmin: xmin, xmax: xmax, running: running)
        }

        init(xmin: UInt64, xmax: UInt64, running: [UInt64]) {
            self.xmin = xmin
            self.xmax = xmax
            self.running = running
        }

        private static func xid(_ text: Substring) -> UInt64? {
            guard !text.isEmpty, text.count <= 19, text.allSatisfy({ ("0"..."9").contains($0) }) else {
                return nil
            }
            return UInt64(text)
        }

        /// As PostgreSQL reads it.
        var text: String { "\(xmin):\(xmax):" + running.map(String.init).joined(separator: ",") }
    }

    /// Where a page starts within a batch.
    struct Position: Equatable {
        var batch: Snapshot
        var xid: UInt64
        var change: Int64
    }

    /// The feed's origin, from its metadata row.
    var origin: String
    /// Every write committed as this snapshot saw it has been delivered.
    var delivered: Snapshot
    /// The batch under way, and the last entry of it delivered; `nil` between batches.
    var position: Position?

    var token: String {
        var token = "\(origin)/\(delivered.text)"
        if let position { token += "/\(position.batch.text)/\(position.xid)/\(position.change)" }
        return token
    }

    init(origin: String, delivered: Snapshot, position: Position?) {
        self.origin = origin
        self.delivered = delivered
        self.position = position
    }

    /// The cursor `token` stands for; `nil` when it is not one a PostgreSQL feed issues.
    init?(token: String) {
        let parts = token.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 5, !parts[0].isEmpty, parts[0].count <= 36,
            let delivered = Snapshot(parts[1])
        else { return nil }
        self.origin = String(parts[0])
        self.delivered = delivered
        guard parts.count == 5 else {
            self.position = nil
            return
        }
        guard let batch = Snapshot(parts[2]), let xid = UInt64(parts[3]), let change = Int64(parts[4]),
            batch.xmax >= delivered.xmax
        else { return nil }
        self.position = Position(batch: batch, xid: xid, change: change)
    }
}
