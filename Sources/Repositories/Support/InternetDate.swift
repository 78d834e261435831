import Foundation

/// ISO 8601 dates as web APIs and databases write them (RFC 3339), formatted and parsed
/// with plain arithmetic, so every platform reads the same text the same way.
///
/// Shared by the package's stores: `HTTPRepository` writes them to the microsecond,
/// `PostgresRepository`'s `jsonb` bodies to the nanosecond with a fixed width.
package enum InternetDate {
    /// 0000-01-01T00:00:00Z, the first instant RFC 3339 can write, in seconds since 1970.
    package static let earliest = -62_167_219_200
    /// 10000-01-01T00:00:00Z, the first instant after the last one RFC 3339 can write (its
    /// years have four digits), in seconds since 1970.
    package static let end = 253_402_300_800

    /// How many digits of a second's fraction ``format(_:fraction:)`` writes.
    package enum Fraction: Sendable {
        /// To the microsecond, trailing zeros dropped, none when the date is a whole second:
        /// `2024-05-01T09:30:00Z`, `2024-05-01T09:30:00.25Z`.
        case microseconds
        /// Always nine digits, so that texts sort as their dates do and every `Date` more
        /// than 97 days from 2001-01-01 reads back exactly: `2024-05-01T09:30:00.250000000Z`.
        case fixedNanoseconds
    }

    /// The date in UTC, written with `fraction`; `nil` when RFC 3339 cannot write it: not
    /// finite, or outside the years 0000 to 9999 once rounded.
    package static func format(_ date: Date, fraction: Fraction = .microseconds) -> String? {
        // From the reference date, as a Date keeps it: the seconds since 1970 would add a
        // rounding.
        let interval = date.timeIntervalSinceReferenceDate
        let lowest = Double(earliest - referenceOffset)
        let highest = Double(end - referenceOffset)
        // Checked as a Double first: converting a non-finite or huge one to Int traps.
        guard interval.isFinite, interval >= lowest, interval < highest else { return nil }
        let whole = interval.rounded(.down)
        let scale = fraction == .microseconds ? 1_000_000 : 1_000_000_000
        var seconds = Int(whole) + referenceOffset
        var parts = Int(((interval - whole) * Double(scale)).rounded())
        if parts >= scale {
            seconds += 1
            parts -= scale
        }
        guard seconds < end else { return nil }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text =
            pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3_600, 2) + ":"
            + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        switch fraction {
        case .microseconds where parts > 0:
            var digits = pad(parts, 6)
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        case .microseconds:
            break
        case .fixedNanoseconds:
            text += "." + pad(parts, 9)
        }
        return text + "Z"
    }

    /// Seconds from 1970-01-01 to 2001-01-01, the reference date `Date` counts from.
    private static let referenceOffset = 978_307_200

    /// The date `text` names: `YYYY-MM-DD`, optionally followed by `T` (or a space) and
    /// `hh:mm:ss`, a fraction of a second of any length, and `Z` or an offset (`+02:00`,
    /// `+0200`, `+02`); no zone means UTC. `nil` when `text` is not such a date.
    package static func parse(_ text: String) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.take("-"), let month = scanner.number(digits: 2),
            scanner.take("-"), let day = scanner.number(digits: 2), (1...12).contains(month),
            (1...31).contains(day)
        else { return nil }
        var seconds = days(fromYear: year, month: month, day: day) * 86_400
        var fraction = 0.0
        if scanner.atEnd { return Date(timeIntervalSinceReferenceDate: Double(seconds - referenceOffset)) }
        guard scanner.take("T") || scanner.take("t") || scanner.take(" "),
            let hour = scanner.number(digits: 2),
            scanner.take(":"), let minute = scanner.number(digits: 2), scanner.take(":"),
            let second = scanner.number(digits: 2), hour < 24, minute < 60, second <= 60
        else { return nil }
        seconds += hour * 3_600 + minute * 60 + second
        if scanner.take(".") || scanner.take(",") {
            // Whole digits first, one division last: the closest Double to the fraction.
            var value = 0
            var scale = 1.0
            var digits = 0
            while let digit = scanner.digit() {
                if digits < 15 {
                    value = value * 10 + digit
                    scale *= 10
                }
                digits += 1
            }
            guard digits > 0 else { return nil }
            fraction = Double(value) / scale
        }
        if scanner.take("Z") || scanner.take("z") {
        } else if let sign = scanner.sign() {
            guard let hours = scanner.number(digits: 2) else { return nil }
            _ = scanner.take(":")
            let minutes = scanner.number(digits: 2) ?? 0
            seconds -= sign * (hours * 3_600 + minutes * 60)
        }
        guard scanner.atEnd else { return nil }
        // One addition, from the reference date: the exact inverse of `format`.
        return Date(timeIntervalSinceReferenceDate: Double(seconds - referenceOffset) + fraction)
    }

    /// Days since 1970-01-01 of a date in the proleptic Gregorian calendar.
    package static func days(fromYear year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01.
    package static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(abs(value))
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Reads a date's text one byte at a time.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ character: Character) -> Bool {
            guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else {
                return false
            }
            index += 1
            return true
        }

        mutating func digit() -> Int? {
            guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
            index += 1
            return Int(bytes[index - 1] - 48)
        }

        mutating func number(digits: Int) -> Int? {
            var value = 0
            for _ in 0..<digits {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        /// `+1` or `-1` for a zone offset's sign.
        mutating func sign() -> Int? {
            if take("+") { return 1 }
            if take("-") { return -1 }
            return nil
        }
    }
}
