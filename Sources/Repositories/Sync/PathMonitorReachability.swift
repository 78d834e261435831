#if canImport(Network)
    import Dispatch
    import Network

    /// The Network framework's path monitor as a ``NetworkReachability``: reachable while the
    /// device has a satisfied path to the network (Wi-Fi, cellular, wired). The default of
    /// ``AutomaticSync`` on Apple platforms.
    public final class PathMonitorReachability: NetworkReachability {
        private let monitor = NWPathMonitor()
        private let signal = ReachabilitySignal(reachable: true)

        /// Starts a path monitor, which runs until this signal is released.
        public init() {
            monitor.pathUpdateHandler = { [signal] path in signal.set(path.status == .satisfied) }
            monitor.start(queue: DispatchQueue(label: "Repositories.PathMonitorReachability"))
        }

        deinit {
            monitor.cancel()
        }

        /// Whether the current path is satisfied.
        public var isReachable: Bool { signal.isReachable }

        /// The current path's status, then each change.
        public func reachability() -> AsyncStream<Bool> {
            signal.stream()
        }
    }
#endif
