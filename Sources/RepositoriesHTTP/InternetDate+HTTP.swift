import Foundation
import Repositories

extension InternetDate {
    /// The date an HTTP `Date` header names (RFC 9110's IMF-fixdate,
    /// `Sun, 06 Nov 1994 08:49:37 GMT`, read with plain arithmetic; the two obsolete forms a
    /// server may still send are read too), or `nil` when `text` is none of them.
    static func parseHTTPDate(_ text: String) -> Date? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let fields = text.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard fields.count == 6, fields[0].count == 4, fields[0].hasSuffix(","), fields[5] == "GMT",
            let day = Int(fields[1]), fields[1].count == 2, (1...31).contains(day),
            let month = months.firstIndex(of: String(fields[2])), let year = Int(fields[3]),
            fields[3].count == 4
        else { return RetryAfter.httpDate(text) }
        let time = fields[4].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard time.count == 3, fields[4].count == 8, let hour = time[0], let minute = time[1],
            let second = time[2], hour < 24, minute < 60, second <= 60
        else { return nil }
        let seconds =
            days(fromYear: year, month: month + 1, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds))
    }

}
