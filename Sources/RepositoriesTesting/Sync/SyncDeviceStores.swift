import Repositories

/// The stores one simulated device keeps beside the remote: its local store and outbox, and
/// how to close them for a restart.
public struct SyncDeviceStores<Local: Repository>: Sendable
where Local.Entity: Codable, Local.ID: Codable {
    /// The device's local store.
    public var local: Local
    /// The device's outbox.
    public var outbox: Outbox<Local.Entity>
    /// Closes both, as an app being killed would leave them; the next open reads them back.
    public var close: @Sendable () async throws -> Void

    /// Bundles a device's stores.
    public init(
        local: Local, outbox: Outbox<Local.Entity>, close: @escaping @Sendable () async throws -> Void
    ) {
        self.local = local
        self.outbox = outbox
        self.close = close
    }
}
