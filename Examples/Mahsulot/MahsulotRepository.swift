import Foundation
import Repositories

/// The article's `MahsulotRepository`, in a few lines of this package: the API first, its
/// answers mirrored into a durable file; when the API fails, the file answers; when the
/// file is empty too, the API's error is thrown (the article's four steps). Writes go to
/// the API first, and a failed one leaves the file untouched.
enum MahsulotRepository {
    /// The remote-first stack over `remote`, with a `FileRepository` at `fileURL` as its
    /// local store.
    ///
    /// - Parameter onTierFailure: told when the file fails and the stack works around it
    ///   (an answer of the API that could not be mirrored is still returned).
    /// - Throws: the file store's error (naming the file) when it cannot be opened, such as
    ///   `locked` when another process holds it.
    static func make<Remote: Repository<Mahsulot, Int>>(
        remote: Remote, fileURL: URL, onTierFailure: @escaping @Sendable (TierFailure) -> Void
    ) async throws -> RemoteFirstRepository<Remote, FileRepository<Mahsulot>> {
        remote.fallback(
            to: try await FileRepository<Mahsulot>(fileURL: fileURL), onTierFailure: onTierFailure)
    }
}
