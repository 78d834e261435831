import ExampleSupport
import Repositories

/// The article's `MahsulotRepository`, in a few lines of this package, now offline-first:
/// every read is answered by the device's file at once; every save returns once the file
/// and the outbox hold it, network or not; a sync sends the saved changes to the API and
/// brings the API's products back into the file. A save the API refuses waits, with the
/// API's messages by field, until the user fixes it.
///
/// The article's steps become a sync and a read: ask the network (`sync()`), keep what it
/// answered (the sync's pull writes it to the file), on a network error show the file's
/// products, and when the file is empty too, the network's error
/// (``MahsulotlarViewModel/yuklash()``).
enum MahsulotRepository {
    /// When the stack syncs by itself: after every save, and after a failed try again with
    /// backoff until the API answers, however long that takes. The waits are short (20 ms
    /// doubling, at most 250 ms) so the story's change goes out a moment after the network
    /// returns; an app would wait seconds (the default grows to 10 s).
    static let automaticSync = AutomaticSync(
        backoff: RetryPolicy(baseDelay: .milliseconds(20), maxDelay: .milliseconds(250)))

    /// How a sync settles a product the API changed since the device's save was made on it:
    /// field by field, the package's default, spelled out. The shopkeeper changes a price on
    /// the device while the office changes the description on the server: both stay. A field
    /// both changed takes the API's value. Either way the sync keeps a record of the conflict
    /// (``MahsulotlarViewModel/ziddiyatlar``) until the user has seen it.
    static let conflicts = ConflictPolicy<Mahsulot>.mergeFields(tie: .remote)

    /// The offline-first stack over `remote`, with the device's `files` beside it, settling
    /// conflicts by ``conflicts``.
    ///
    /// - Parameter automaticSync: ``automaticSync`` by default; `nil` syncs only when
    ///   `sync()` is called (the tests that drive each sync themselves).
    static func make<Remote: Repository<Mahsulot, Int>>(
        remote: Remote, files: DeviceFiles<Mahsulot>, automaticSync: AutomaticSync? = Self.automaticSync
    ) -> OfflineFirstRepository<Remote, FileRepository<Mahsulot>> {
        remote.offlineFirst(
            local: files.local, outbox: files.outbox, conflicts: conflicts, automaticSync: automaticSync
        )
    }
}
