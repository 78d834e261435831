extension Repository {
    /// This repository announcing every change made through it, with live value streams.
    ///
    /// See ``ObservedRepository`` for when changes are announced and how the streams end.
    public func observed() -> ObservedRepository<Self> {
        ObservedRepository(self)
    }
}
