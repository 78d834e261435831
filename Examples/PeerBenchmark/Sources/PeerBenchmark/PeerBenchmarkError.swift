/// A run that cannot give a fair figure: a contender read back other data, or was not set up
/// as the comparison says.
struct PeerBenchmarkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
