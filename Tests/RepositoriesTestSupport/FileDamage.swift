import Repositories

/// One way the corruption tests damage a store's file: a flipped byte, a cut, or garbage
/// appended, drawn from a seeded generator so every case can be reproduced.
public enum FileDamage: CustomStringConvertible, Sendable {
    /// XOR the byte at `at` with `mask` (never zero, so the byte changes).
    case flip(at: Int, mask: UInt8)
    /// Cut the file to its first `to` bytes.
    case truncate(to: Int)
    /// Append these bytes.
    case append([UInt8])

    /// The damage in words, for a failing case's label.
    public var description: String {
        switch self {
        case .flip(let offset, let mask): "flip byte \(offset) with mask \(mask)"
        case .truncate(let length): "truncate to \(length) bytes"
        case .append(let garbage): "append \(garbage.count) bytes of garbage"
        }
    }

    /// Damages `bytes` in place.
    public func apply(to bytes: inout [UInt8]) {
        switch self {
        case .flip(let offset, let mask): bytes[offset] ^= mask
        case .truncate(let length): bytes.removeSubrange(length...)
        case .append(let garbage): bytes += garbage
        }
    }

    /// Case `number`'s damage to a file of `size` bytes: flips, cuts and appends in turn,
    /// at places and with bytes drawn from `random`.
    public static func random(_ number: Int, size: Int, using random: inout SeededRandomNumberGenerator)
        -> FileDamage
    {
        switch number % 3 {
        case 0:
            .flip(
                at: Int.random(in: 0..<size, using: &random),
                mask: UInt8.random(in: 1...255, using: &random))
        case 1: .truncate(to: Int.random(in: 0..<size, using: &random))
        default:
            .append(
                (0..<Int.random(in: 1...64, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                })
        }
    }
}
