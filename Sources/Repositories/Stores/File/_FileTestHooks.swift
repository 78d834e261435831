import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a test changes on a ``FileRepository`` to reach edges that are impractical to reach
/// for real: a record size limit small enough to exceed without gigabytes of memory, and
/// system calls that fail partway. Production code leaves it as it was made: the format's
/// limit and no faults.
final class _FileTestHooks: Sendable {
    /// The system calls a fault can be planned for.
    enum SystemCall: Hashable, Sendable {
        case write
        case truncate
        case synchronize
    }

    /// A planned failure: the call first does `bytesFirst` bytes of its work (a write that
    /// got partway; keep it below the write's size), then fails with `errno` `code`;
    /// `times` calls in a row fail.
    struct Fault: Sendable {
        var code: Int32
        var bytesFirst = 0
        var times = Int.max
    }

    /// The most payload bytes one record may hold: the format's limit unless a test lowers it.
    let recordSizeLimit = Atomic<UInt64>(JournalFormat.maxPayloadLength)
    private let faults = Mutex<[SystemCall: Fault]>([:])

    /// Makes the next `fault.times` calls of `call` fail as `fault` says.
    func plan(_ fault: Fault, for call: SystemCall) {
        faults.withLock { $0[call] = fault }
    }

    /// Lets every system call run for real again.
    func clearFaults() {
        faults.withLock { $0.removeAll() }
    }

    /// The fault planned for this call of `call`, if any, counting it off.
    func takeFault(for call: SystemCall) -> Fault? {
        faults.withLock { faults in
            guard var fault = faults[call] else { return nil }
            fault.times -= 1
            faults[call] = fault.times > 0 ? fault : nil
            return fault
        }
    }
}
