import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What an ``HTTPTransport`` threw when no response arrived, kept whole, and described in a
/// few words instead of the platform's error dump.
///
/// It is the `underlying` error of the `unavailable`, `timedOut` and `rejected` errors an
/// ``HTTPRepository`` throws for a failed exchange, so that an error's `description` stays one
/// readable sentence (on Linux a `URLError` describes itself as
/// `Error Domain=NSURLErrorDomain Code=-1004 "(null)" UserInfo={…}`):
///
/// ```swift
/// if let failure = error.underlying as? HTTPTransportFailure, failure.code == .cannotConnectToHost { … }
/// ```
public struct HTTPTransportFailure: Error, Sendable, CustomStringConvertible {
    /// The error the transport threw, as it was.
    public let error: any Error

    /// Keeps `error`.
    public init(_ error: any Error) {
        self.error = error
    }

    /// The `URLError` code, when the transport threw a `URLError`.
    public var code: URLError.Code? { (error as? URLError)?.code }

    /// `URLError -1004 (cannot connect to host)`, or the error's own description for an error
    /// that is not a `URLError`.
    public var description: String {
        guard let code else { return String(describing: error) }
        let name = Self.names[code.rawValue].map { " (\($0))" } ?? ""
        return "URLError \(code.rawValue)\(name)"
    }

    private static let names: [Int: String] = [
        URLError.Code.timedOut.rawValue: "timed out",
        URLError.Code.cannotFindHost.rawValue: "cannot find host",
        URLError.Code.cannotConnectToHost.rawValue: "cannot connect to host",
        URLError.Code.networkConnectionLost.rawValue: "network connection lost",
        URLError.Code.dnsLookupFailed.rawValue: "DNS lookup failed",
        URLError.Code.httpTooManyRedirects.rawValue: "too many HTTP redirects",
        URLError.Code.notConnectedToInternet.rawValue: "not connected to the internet",
        URLError.Code.badServerResponse.rawValue: "bad server response",
        URLError.Code.secureConnectionFailed.rawValue: "secure connection failed",
        URLError.Code.cancelled.rawValue: "cancelled",
    ]
}
