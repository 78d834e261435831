/// A repository that is the system of record for its data, such as a web API or a database
/// that several machines share, rather than a copy this process may rewrite at will.
///
/// The decorators that keep a second store rewrite and prune it to match the primary: the
/// cache of ``WriteThroughRepository`` (a failed copy is followed by a delete of the old
/// one) and the local mirror of ``RemoteFirstRepository`` (a `fetchAll()` deletes what the
/// remote lacks). Given a system of record as that second store, they would delete real
/// data, so they stop the program at construction with a message that says what to write
/// instead:
///
/// ```swift
/// let todos = file.writeThrough(to: api)    // stops: the API is a system of record
/// let todos = api.fallback(to: file)        // the API first, the file beside it
/// ```
///
/// `HTTPRepository` conforms, and so do the decorators that forward every call to one
/// (retrying, timeout, circuit breaker, instrumented, observed, read-only). Conform your own
/// remote stores; `AnyRepository` erases the conformance, so build the stack before erasing.
public protocol SystemOfRecord: Repository {}

/// Stops the program when `second`, the second store of a two-tier decorator, is a system
/// of record: a decorator would rewrite and prune it as if it were a copy.
func requireCopy<Second>(_ second: Second.Type, as role: String, of decorator: String) {
    precondition(
        !(second is any SystemOfRecord.Type),
        """
        \(decorator) was given \(second), a system of record (a web API or a shared database), as its \
        \(role). The \(role) is a copy that \(decorator) rewrites and prunes, so it would delete data \
        there. Put the system of record first (api.fallback(to: localStore), api.writeThrough(to: \
        localCache)) and a store this device owns second.
        """)
}
