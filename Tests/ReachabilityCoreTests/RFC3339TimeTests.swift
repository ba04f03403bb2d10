import ReachabilityCore
import Testing

/// RFC 3339 section 5.6, strictly: what the daemon accepts for `notBefore`.
@Suite("RFC 3339 times")
struct RFC3339TimeTests {
    static let valid: [(String, Double)] = [
        ("1970-01-01T00:00:00Z", 0),
        ("2026-11-24T10:00:00Z", 1_795_514_400),
        ("2026-11-24t10:00:00z", 1_795_514_400),
        ("2026-11-24T12:00:00+02:00", 1_795_514_400),
        ("2026-11-24T05:30:00-04:30", 1_795_514_400),
        ("2026-11-24T10:00:00.250Z", 1_795_514_400.25),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("2016-12-31T23:59:60Z", 1_483_228_799),  // a leap second counts as :59
    ]

    static let invalid = [
        "2026-02-31T00:00:00Z", "2025-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
        "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:61Z", "2026-01-01T00:00:00+99:99",
        "2026-01-01T00:00:00+0000", "2026-01-01T00:00:00+00", "2026-1-01T00:00:00Z", "２026-01-01T00:00:00Z", "2026-01-01T00:00:00 Z",
        "2026-01-01 00:00:00Z", "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00Zjunk", "", "2026-W01-1",
    ]

    @Test(arguments: valid)
    func parses(_ text: String, _ seconds: Double) {
        #expect(RFC3339Time.secondsSince1970(text) == seconds, "\(text)")
    }

    @Test(arguments: invalid)
    func refuses(_ text: String) {
        #expect(RFC3339Time.secondsSince1970(text) == nil, "\(text)")
    }
}
