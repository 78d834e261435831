extension FileRepository {
    /// The most JSON bytes one entity may take: what fits one record's payload as a batch
    /// of one, the form compaction writes it in.
    static func maxEntityLength(recordLimit: UInt64) -> UInt64 {
        recordLimit - JournalFormat.batchCountSize - JournalFormat.batchEntrySize
    }

    /// Throws `rejected` naming the entity when its encoding (`byteCount` bytes) is larger than
    /// one record of the file holds, before anything is written.
    static func checkEntitySize(
        _ byteCount: Int, id: @autoclosure () -> String, recordLimit: UInt64, path: String
    ) throws {
        let limit = maxEntityLength(recordLimit: recordLimit)
        guard UInt64(byteCount) > limit else { return }
        throw RepositoryError(
            .rejected,
            reason:
                "The entity encodes to \(byteCount) bytes, more than one record of a store file holds (\(limit) bytes), so nothing was written",
            recovery:
                "Keep large contents (media, blobs) in files of their own and store their names in the entity",
            id: id(), location: path)
    }

    /// Throws `rejected` naming the entity that takes the batch past one record's limit
    /// when the batch's JSON (`byteCounts`, one an entity) does not fit one record, before
    /// anything is written.
    static func checkBatchSize(_ byteCounts: [Int], ids: () -> [String], recordLimit: UInt64, path: String)
        throws
    {
        var total = JournalFormat.batchCountSize
        var overflowing: Int?
        for (position, count) in byteCounts.enumerated() {
            total += JournalFormat.batchEntrySize + UInt64(count)
            if total > recordLimit, overflowing == nil { overflowing = position }
        }
        guard let overflowing else { return }
        throw RepositoryError(
            .rejected,
            reason:
                "The batch of \(byteCounts.count) entities encodes to \(total) bytes, more than one record of a store file holds (\(recordLimit) bytes), so nothing of it was written",
            recovery:
                "Save it in smaller batches (each is all or nothing on its own); the one named is where it passed the limit",
            id: ids()[overflowing], location: path)
    }

    /// Throws `rejected` when a delete of `count` IDs (`byteCount` bytes of JSON) does not
    /// fit one record, before anything is written.
    static func checkDeleteSize(
        _ byteCount: Int, count: Int, firstID: String, recordLimit: UInt64, path: String
    )
        throws
    {
        guard UInt64(byteCount) > recordLimit else { return }
        throw RepositoryError(
            .rejected,
            reason:
                "Deleting \(count) IDs at once encodes to \(byteCount) bytes, more than one record of a store file holds (\(recordLimit) bytes), so nothing was deleted",
            recovery: "Delete them in smaller groups", id: firstID, location: path)
    }

    /// The record size limit in force: the format's, unless a test lowered it.
    var recordLimit: UInt64 { hooks.recordSizeLimit.load(ordering: .relaxed) }
}
