// A decorator whose writes reach a system of record is one too: handing it to a two-tier
// decorator as the copy to rewrite and prune would delete the real data all the same.

extension RetryingRepository: SystemOfRecord where Base: SystemOfRecord {}
extension TimeoutRepository: SystemOfRecord where Base: SystemOfRecord {}
extension CircuitBreakerRepository: SystemOfRecord where Base: SystemOfRecord {}
extension InstrumentedRepository: SystemOfRecord where Base: SystemOfRecord {}
extension ObservedRepository: SystemOfRecord where Base: SystemOfRecord {}
extension CoalescingRepository: SystemOfRecord where Base: SystemOfRecord {}
extension ReadOnlyRepository: SystemOfRecord where Base: SystemOfRecord {}
extension MappedRepository: SystemOfRecord where Base: SystemOfRecord {}
extension RemoteFirstRepository: SystemOfRecord where Remote: SystemOfRecord {}
extension CacheAsideRepository: SystemOfRecord where Source: SystemOfRecord {}
extension WriteThroughRepository: SystemOfRecord where Source: SystemOfRecord {}
