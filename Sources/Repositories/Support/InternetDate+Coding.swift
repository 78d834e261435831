import Foundation

extension InternetDate {
    /// Writes each date as ISO 8601 in UTC with `fraction`.
    ///
    /// A date RFC 3339 cannot write (not finite, or outside the years 0000 to 9999) throws
    /// `EncodingError.invalidValue` at its coding path, so nothing is stored or sent; no
    /// reader could take it back.
    package static func encodingStrategy(_ fraction: Fraction) -> JSONEncoder.DateEncodingStrategy {
        .custom { date, encoder in
            guard let text = format(date, fraction: fraction) else {
                // The seconds, not the date: describing a non-finite Date traps, and every log
                // of this error describes its value.
                throw EncodingError.invalidValue(
                    date.timeIntervalSince1970,
                    EncodingError.Context(
                        codingPath: encoder.codingPath,
                        debugDescription:
                            "the date \(date.timeIntervalSince1970) seconds after 1970 cannot be written as "
                            + "RFC 3339, whose years run from 0000 to 9999"))
            }
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
    }

    /// Reads each date as ISO 8601 with or without a fraction of a second, in UTC (`Z`) or
    /// with an offset (`+02:00`), or a plain date (`2024-05-01`, midnight UTC).
    package static var decodingStrategy: JSONDecoder.DateDecodingStrategy {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\"\(text)\" is not an ISO 8601 date")
            }
            return date
        }
    }
}
