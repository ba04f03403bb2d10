import ReachabilityCore
import Testing

// The HTTP value parsers: what a server or a user types goes through them, so the hostile rows
// (overflow, signs, non-ASCII digits, control characters) matter as much as the valid ones.

@Suite("HTTP parsers: Content-Length")
struct HTTPParsersContentLengthTests {
    @Test(arguments: [
        ("0", Int64(0)), ("5", 5), (" 42 ", 42), ("\t7\t", 7), ("007", 7),
        ("5, 5", 5), ("5,5,5", 5), ("9223372036854775807", Int64.max), ("9223372036854775807, 9223372036854775807", Int64.max),
    ])
    func parses(_ text: String, _ length: Int64) {
        #expect(ContentLength.parse(text) == length)
    }

    @Test(arguments: [
        "", " ", "+5", "-5", "-0", "5, 6", "5,", ",5", "5,,5", "5 5", "1e3", "0x10", "5.0", "five",
        "9223372036854775808", "99999999999999999999999", "18446744073709551616",
        "\u{663}", "\u{FF15}", "5\u{301}", "5\0",
    ])
    func rejects(_ text: String) {
        #expect(ContentLength.parse(text) == nil)
    }
}

@Suite("HTTP parsers: Content-Range")
struct HTTPParsersContentRangeTests {
    @Test(arguments: [
        ("bytes 0-9/10", ContentRange(range: 0...9, total: 10)),
        ("BYTES 0-0/1", ContentRange(range: 0...0, total: 1)),
        ("bytes\t1-2/3", ContentRange(range: 1...2, total: 3)),
        ("bytes 5-9/*", ContentRange(range: 5...9, total: nil)),
        ("bytes */0", ContentRange(range: nil, total: 0)),
        ("bytes 0-9223372036854775806/9223372036854775807", ContentRange(range: 0...(Int64.max - 1), total: Int64.max)),
        ("bytes 9223372036854775807-9223372036854775807/*", ContentRange(range: Int64.max...Int64.max, total: nil)),
    ] as [(String, ContentRange)])
    func parses(_ header: String, _ expected: ContentRange) {
        #expect(ContentRange(header) == expected)
    }

    @Test(arguments: [
        "bytes 0-9223372036854775807/9223372036854775807",  // last must be below total
        "bytes 5-4/10", "bytes 0-10/10", "bytes 0-0/0",
        "bytes 0-9/9223372036854775808", "bytes 0-99999999999999999999999/*", "bytes 99999999999999999999999-1/*",
        "bytes -1-5/10", "bytes +1-5/10", "bytes 1-+5/10", "bytes 0-5/-10", "bytes 0-5/+10", "bytes 1--5/10",
        "bytes */*", "bytes0-1/2", "bytes 1-/10", "bytes -5/10", "bytes 1 - 5/10", "bytes 1-5/10/20",
        "bytes \u{661}-\u{662}/\u{663}", "items 0-1/2",
    ])
    func rejects(_ header: String) {
        #expect(ContentRange(header) == nil)
    }
}

@Suite("HTTP parsers: header fields (-H)")
struct HTTPParsersHeaderFieldTests {
    @Test(arguments: [
        ("X-Token: abc", "X-Token", "abc"),
        ("Accept:application/json", "Accept", "application/json"),
        ("X:  spaced value \t", "X", "spaced value"),
        ("Empty:", "Empty", ""),
        ("X-A: a:b:c", "X-A", "a:b:c"),
        ("X-Tab: a\tb", "X-Tab", "a\tb"),
        ("X-UTF8: h\u{E9}llo", "X-UTF8", "h\u{E9}llo"),
        ("!#$%&'*+-.^_`|~09azAZ: v", "!#$%&'*+-.^_`|~09azAZ", "v"),
    ])
    func parses(_ line: String, _ name: String, _ value: String) {
        #expect(HTTPHeaderField.parse(line) == HTTPHeaderField(name: name, value: value))
    }

    @Test(arguments: [
        "", ":", ": value", "NoColon", "Bad Name: v", "Name : v", "Na\"me: v", "Name(x): v", "N\u{E0}me: v",
        "X: a\r\nInjected: 1", "X: a\nb", "X: a\rb", "X: a\0b", "X: a\u{7F}", "X: \u{1}", "\0: v",
    ])
    func rejects(_ line: String) {
        #expect(HTTPHeaderField.parse(line) == nil)
    }
}

@Suite("HTTP parsers: HTTP-date and Retry-After")
struct HTTPParsersDateTests {
    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", Int64(784_111_777)),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
        ("Sun Nov  6 08:49:37 1994", 784_111_777),
        ("Thursday, 01-Jan-70 00:00:00 GMT", 0),
        ("Saturday, 01-Jan-00 00:00:00 GMT", 946_684_800),
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
        ("Sat, 01 Jan 0000 00:00:00 GMT", -62_167_219_200),
    ])
    func parsesDates(_ text: String, _ epoch: Int64) {
        #expect(HTTPDate.parse(text) == epoch)
    }

    @Test(arguments: [
        "Sun, 06 Nov 9223372036854775807 08:49:37 GMT", "Sun, 06 Nov 99999999999999999999 08:49:37 GMT",
        "Sun, 06-Nov-9223372036854775807 08:49:37 GMT", "Sun, 06 Nov 12345 08:49:37 GMT", "Sun, 06-Nov-994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:99999999999999999999 GMT", "Sun, 06 Nov 1994 08:-1:37 GMT", "Sun, 06 Nov 1994 08::37 GMT",
        "Sun, +6 Nov 1994 08:49:37 GMT", "Sun, 006 Nov 1994 08:49:37 GMT", "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "06 Nov 1994", "",
    ])
    func rejectsDates(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    static let now: Int64 = 784_111_777

    @Test(arguments: [
        ("120", Duration.seconds(120)), (" 0 ", .zero), ("9223372036854775807", .seconds(Int64.max)),
        // Too large for Int64: a very long wait (the caller caps it), not a trap or nil.
        ("99999999999999999999999", .seconds(Int64.max / 1_000_000_000_000)),
        ("Sun, 06 Nov 1994 08:50:37 GMT", .seconds(60)), ("Sun, 06 Nov 1994 08:00:00 GMT", .zero),
    ])
    func parsesRetryAfter(_ text: String, _ delay: Duration) {
        #expect(RetryAfter.parse(text, now: Self.now) == delay)
    }

    @Test(arguments: ["", "-5", "+5", "1.5", "5\u{301}", "\u{663}", "soon", "Sun, 06 Nov 99999 08:49:37 GMT"])
    func rejectsRetryAfter(_ text: String) {
        #expect(RetryAfter.parse(text, now: Self.now) == nil)
    }

    @Test func retryAfterSurvivesAnAbsurdClock() {
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(RetryAfter.parse(date, now: .min) == .seconds(Int64.max / 1_000_000_000_000))
        #expect(RetryAfter.parse(date, now: .max) == .zero)
    }
}

@Suite("HTTP parsers: shared helpers")
struct HTTPParsersHelperTests {
    @Test(arguments: [
        ("0", true), ("9", true), ("5\u{301}", false), ("\u{663}", false), ("\u{FF15}", false), ("a", false), ("/", false),
        (":", false),
    ] as [(Character, Bool)])
    func asciiDigits(_ character: Character, _ isDigit: Bool) {
        #expect(character.isASCIIDigit == isDigit)
    }

    @Test(arguments: [
        ("\"abc\"", true), ("\"\"", true), (" \"abc\" ", true), ("W/\"abc\"", false), ("abc", false), ("\"", false), ("", false),
    ])
    func strongEntityTags(_ tag: String, _ isStrong: Bool) {
        #expect(EntityTag.isStrong(tag) == isStrong)
    }
}
