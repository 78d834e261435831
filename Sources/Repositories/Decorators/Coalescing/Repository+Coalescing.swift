extension Repository {
    /// This repository with concurrent identical reads sharing one call (single flight).
    ///
    /// See ``CoalescingRepository`` for what is shared and how writes and cancellation
    /// interact with shared reads.
    public func coalescing() -> CoalescingRepository<Self> {
        CoalescingRepository(self)
    }
}
