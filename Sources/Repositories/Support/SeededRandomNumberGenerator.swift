/// A fast random number generator that repeats its sequence for a given seed (SplitMix64).
///
/// Use it wherever randomness must be reproducible: retry jitter in tests, the
/// conformance suite's randomized sequences, seeded fault injection.
///
/// ```swift
/// var random = SeededRandomNumberGenerator(seed: 42)
/// let roll = Int.random(in: 1...6, using: &random)   // the same roll on every run
/// ```
///
/// Not suitable for cryptography.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// Returns the next value of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
