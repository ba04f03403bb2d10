import Glibc
import ReachabilityCore

/// Local time as the C library knows it, for budget cycles (which start at local midnight).
///
/// Not Foundation's `TimeZone`: without ICU (the daemon links FoundationEssentials only, to stay
/// small) it knows no named zone, and `TimeZone.current` would be UTC on a device set to
/// Europe/Berlin. glibc's `localtime_r` reads `TZ`, `/etc/localtime` and the zoneinfo files
/// itself, with daylight-saving changes. What glibc does silently, this says: a `TZ` that names
/// a zone the system does not have makes glibc use UTC, and that is an error here.
enum LocalTimeZone {
    /// Local time's offset from UTC at `secondsSince1970`, in seconds (east positive).
    static func utcOffset(at secondsSince1970: Int64) -> Int64 {
        var time = time_t(clamping: secondsSince1970)
        var fields = tm()
        guard localtime_r(&time, &fields) != nil else { return 0 }
        return Int64(fields.tm_gmtoff)
    }

    /// Why local time cannot be honoured, or nil when it can: `TZ` (from `environment`) names
    /// neither a zone file that exists nor a POSIX rule (`CET-1CEST,M3.5.0,M10.5.0/3`). An unset
    /// `TZ` is `/etc/localtime`, and without that file the system's time is UTC: honoured.
    static func problem(environment: [String: String], zoneDirectory: String = "/usr/share/zoneinfo") -> String? {
        guard let value = environment["TZ"], !value.isEmpty else { return nil }
        let name = value.hasPrefix(":") ? String(value.dropFirst()) : value
        if isPOSIXRule(name) { return nil }
        let directory = environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? zoneDirectory
        let file = name.hasPrefix("/") ? name : directory + "/" + name
        var info = stat()
        if !name.contains(".."), stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG { return nil }
        return "TZ=\(value.prefix(64)) names no time zone this system has (no file \(file.prefix(120))): budget cycles start at local midnight, and the C library would use UTC instead; install tzdata, or set TZ to a zone that exists"
    }

    /// A POSIX `TZ` rule: a name of three or more letters (or `<…>`) followed by an offset,
    /// `EST5EDT` or `<+03>-3`, as opposed to a zone file's name (`Europe/Berlin`, `UTC`).
    static func isPOSIXRule(_ text: String) -> Bool {
        var rest = Substring(text)
        if rest.hasPrefix("<") {
            guard let close = rest.firstIndex(of: ">") else { return false }
            rest = rest[rest.index(after: close)...]
        } else {
            let letters = rest.prefix { $0.isASCII && $0.isLetter }
            guard letters.count >= 3 else { return false }
            rest = rest.dropFirst(letters.count)
        }
        guard let next = rest.first else { return false }
        return next == "+" || next == "-" || next.isASCIIDigit
    }
}
