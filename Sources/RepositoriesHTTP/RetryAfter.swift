import Foundation

/// Reads an HTTP `Retry-After` value: a number of seconds, or an HTTP-date (RFC 9110).
enum RetryAfter {
    /// How long `value` asks a client to wait from `now`; zero for a date in the past, `nil`
    /// when there is no value or it cannot be read.
    static func parse(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        guard let date = httpDate(value) else { return nil }
        let milliseconds = (date.timeIntervalSince(now) * 1_000).rounded()
        return .milliseconds(max(0, Int(milliseconds)))
    }

    /// Parses the preferred IMF-fixdate and the two obsolete forms a server may still send.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        for format in [
            "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
        ] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
