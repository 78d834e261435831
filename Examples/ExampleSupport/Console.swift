import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Output helpers the examples share: headings, grouped numbers and durations, and
/// whether standard output is a terminal.
public enum Console {
    /// Whether standard output is a terminal (so a progress bar can redraw in place).
    public static var isTerminal: Bool { isatty(STDOUT_FILENO) != 0 }

    /// Writes out what `print` has buffered, so a redrawn line shows at once.
    public static func flush() {
        fflush(nil)
    }

    /// Prints a blank line and `title` underlined, to separate the steps of a run.
    public static func heading(_ title: String) {
        print("\n\(title)\n" + String(repeating: "-", count: title.count))
    }

    /// `number` with thousands grouped by commas, whatever the locale: `45,716`.
    public static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return number < 0 ? "-" + result : result
    }

    /// `count` and `noun`, the noun in the plural unless the count is one: `1 change`,
    /// `3 changes`, `1,200 products`.
    public static func counted(_ count: Int, _ noun: String) -> String {
        "\(grouped(count)) \(count == 1 ? noun : noun + "s")"
    }

    /// A badge for `count` changes waiting to reach the API: `no changes waiting`,
    /// `1 change waiting`, `3 changes waiting`.
    public static func changesWaiting(_ count: Int) -> String {
        count == 0 ? "no changes waiting" : "\(counted(count, "change")) waiting"
    }

    /// Runs `body` and measures it on the continuous clock: its result and how long it took.
    public static func timed<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
    ) async rethrows -> (Result, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await body()
        return (result, clock.now - start)
    }

    /// `duration` in the unit that reads best: `840 µs`, `12.3 ms`, `1.52 s`.
    public static func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        if seconds >= 1 { return String(format: "%.2f s", seconds) }
        if seconds >= 1e-3 { return String(format: "%.1f ms", seconds * 1e3) }
        return String(format: "%.0f µs", seconds * 1e6)
    }
}
