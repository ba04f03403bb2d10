import ArgumentParser
package import ReachabilityCore
import ReachabilityLinux

/// Range checks for numeric options: every number a user types is checked here before it
/// becomes a `Duration` or a count, so `inf`, `1e30` or `-1` is a one-line usage error (exit
/// 64) instead of a trap.
package enum OptionChecks {
    /// The longest time any option accepts: about 31 years, far inside `Duration`'s range.
    package static let maximumSeconds: Double = 1_000_000_000

    /// `value` seconds as a duration, or a usage error naming `option`.
    package static func seconds(_ value: Double, option: String) throws -> Duration {
        guard value.isFinite, value >= 0, value <= maximumSeconds else {
            throw ValidationError("\(option) must be a number of seconds from 0 to \(Int(maximumSeconds)), not \(value)")
        }
        return .nanoseconds(Int64((value * 1e9).rounded()))
    }

    /// Throws unless `value` lies in `range`.
    package static func check(_ value: Int, option: String, in range: ClosedRange<Int>, unit: String) throws {
        guard range.contains(value) else {
            throw ValidationError("\(option) must be from \(range.lowerBound) to \(range.upperBound) \(unit), not \(value)")
        }
    }

    /// Throws unless `path` is a readable regular file (of at most 16 MiB): a CA file, a
    /// header file. Checked before any traffic, so a typo is a usage error, not a TLS failure.
    package static func readableFile(_ path: String, option: String, mustContain marker: String? = nil, what: String = "") throws {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readRegularFile(path, limit: 16 << 20)
        } catch {
            throw ValidationError("\(option) \(path): \(error.reason)")
        }
        if let marker, !String(decoding: bytes, as: UTF8.self).contains(marker) {
            throw ValidationError("\(option) \(path): \(what)")
        }
    }

    /// Throws when `url` names a port outside 1...65535 (`http://host:99999/`).
    package static func checkPort(_ url: String, option: String = "URL") throws {
        let afterScheme = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard afterScheme.count > 2 else { return }
        var authority = afterScheme[2]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        // `[::1]:8080`: the port follows the bracket.
        let hostEnd = authority.hasPrefix("[") ? (authority.firstIndex(of: "]") ?? authority.endIndex) : authority.startIndex
        guard let colon = authority[hostEnd...].lastIndex(of: ":") else { return }
        let port = authority[authority.index(after: colon)...]
        guard !port.isEmpty else { return }
        guard port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber), let number = Int(port), (1...65535).contains(number) else {
            throw ValidationError("not a valid port in '\(url)': '\(port)' (1 to 65535)")
        }
    }

    /// `-H` values as request headers: `Name: value`, a token name, no control character in
    /// the value (which could split the request); names in `reserved` (lowercase) are set by
    /// reach itself and refused.
    package static func headers(_ texts: [String], reserved: Set<String>) throws -> [HTTPHeaderField] {
        try texts.map { text in
            guard let field = HTTPHeaderField.parse(text) else {
                throw ValidationError("-H: expected 'Name: value' (a token name, no control characters in the value), not '\(text)'")
            }
            guard !reserved.contains(field.name.lowercased()) else {
                throw ValidationError("-H \(field.name): set by reach itself")
            }
            return field
        }
    }
}

/// Path helpers the commands share with the library (one home: `ReachabilityLinux.FileSystem`).
package enum PathNames {
    package static func basename(_ path: String) -> String { FileSystem.basename(path) }
    package static func isDirectory(_ path: String) -> Bool { FileSystem.isDirectory(path) }
    package static func exists(_ path: String) -> Bool { FileSystem.exists(path) }
    package static func linkTarget(_ path: String) -> String? { FileSystem.linkTarget(path) }
    package static func parent(_ path: String) -> String { FileSystem.parent(path) }
}
