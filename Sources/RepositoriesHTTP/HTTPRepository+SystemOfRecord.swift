import Repositories

/// A web API is the system of record for its data, never a cache or a local mirror.
extension HTTPRepository: SystemOfRecord {}
