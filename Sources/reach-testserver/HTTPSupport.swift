import ReachabilityCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The byte range a request asked for, resolved against the file's size.
enum RangeRequest: Equatable {
    /// No usable `Range` header (absent, malformed, several ranges, or not `bytes`): send it all.
    case none
    /// `first...last`, both inclusive and within the file.
    case satisfiable(first: Int64, last: Int64)
    /// Syntactically fine but outside the file: 416.
    case unsatisfiable

    /// Parses a single `bytes=` range (`N-`, `N-M`, `-SUFFIX`) against a file of `size` bytes.
    /// Anything the server does not support is treated as no range at all (RFC 9110 allows a
    /// server to ignore `Range`).
    static func parse(_ header: String?, size: Int64) -> RangeRequest {
        guard let header else { return .none }
        let trimmed = header.trimmingASCIISpaces()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .none }
        let spec = trimmed.dropFirst("bytes=".count).trimmingASCIISpaces()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .none }
        let firstText = spec[..<dash].trimmingASCIISpaces()
        let lastText = spec[spec.index(after: dash)...].trimmingASCIISpaces()
        if firstText.isEmpty {
            // Suffix range: the last N bytes.
            guard let suffix = Int64(lastText), suffix >= 0 else { return .none }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .satisfiable(first: max(0, size - suffix), last: size - 1)
        }
        guard let first = Int64(firstText), first >= 0 else { return .none }
        var last = size - 1
        if !lastText.isEmpty {
            guard let parsed = Int64(lastText), parsed >= first else { return .none }
            last = min(parsed, size - 1)
        }
        guard first < size else { return .unsatisfiable }
        return .satisfiable(first: first, last: last)
    }
}

extension StringProtocol {
    func trimmingASCIISpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}

/// `application/x-www-form-urlencoded`-style query parsing and percent-decoding.
enum URIParts {
    /// Splits a request target into a decoded path and its query items (last one wins).
    static func split(_ uri: String) -> (path: String, query: String, items: [String: String]) {
        let pathPart: Substring
        let queryPart: Substring
        if let mark = uri.firstIndex(of: "?") {
            pathPart = uri[..<mark]
            queryPart = uri[uri.index(after: mark)...]
        } else {
            pathPart = Substring(uri)
            queryPart = ""
        }
        var items: [String: String] = [:]
        for pair in queryPart.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = percentDecode(parts[0], plusIsSpace: true) ?? String(parts[0])
            let value = parts.count > 1 ? (percentDecode(parts[1], plusIsSpace: true) ?? String(parts[1])) : ""
            items[key] = value
        }
        return (percentDecode(pathPart, plusIsSpace: false) ?? String(pathPart), String(queryPart), items)
    }

    static func percentDecode(_ text: Substring, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(ASCIIHex.value), let low = iterator.next().flatMap(ASCIIHex.value) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

}

/// IMF-fixdate formatting (`Sun, 06 Nov 1994 08:49:37 GMT`), as `Last-Modified` and `Date` use.
enum HTTPDateFormat {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(epochSeconds: Int) -> String {
        var seconds = time_t(epochSeconds)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    static func now() -> String { format(epochSeconds: Int(time(nil))) }
}

/// JSON strings for the request log, escaped by the contract's one writer.
enum JSONText {
    static func quoted(_ text: String) -> String { PathJSON.string(text) }

    static func optional(_ text: String?) -> String { text.map(quoted) ?? "null" }
}
