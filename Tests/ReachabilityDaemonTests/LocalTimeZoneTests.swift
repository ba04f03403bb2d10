import FoundationEssentials
@testable import ReachabilityDaemon
import ReachabilityTestKit
import Testing

/// Budget cycles start at local midnight, as the C library computes it; a `TZ` it cannot honour
/// (which glibc would silently treat as UTC) is an error, never a cycle at the wrong hour.
@Suite("Local time for budget cycles")
struct LocalTimeZoneTests {
    @Test(arguments: [
        ([:], true),
        (["TZ": ""], true),
        (["TZ": "Europe/Berlin"], true),
        (["TZ": ":Europe/Berlin"], true),
        (["TZ": "UTC"], true),
        (["TZ": ":UTC"], true),
        (["TZ": "CET-1CEST,M3.5.0,M10.5.0/3"], true),
        (["TZ": "EST5EDT"], true),
        (["TZ": "<+03>-3"], true),
        (["TZ": "/usr/share/zoneinfo/Asia/Tokyo"], true),
        (["TZ": "Europe/Berln"], false),
        (["TZ": ":Mars/Olympus"], false),
        (["TZ": "Europe/../../../etc/passwd"], false),
        (["TZ": "/usr/share/zoneinfo/Europe"], false),  // a directory, not a zone file
        (["TZ": "Europe/Berlin", "TZDIR": "/nonexistent"], false),
    ] as [([String: String], Bool)])
    func aZoneIsHonouredOnlyWhenTheSystemHasIt(environment: [String: String], honoured: Bool) {
        let problem = LocalTimeZone.problem(environment: environment)
        #expect((problem == nil) == honoured, "\(environment): \(problem ?? "honoured")")
        if let problem {
            #expect(problem.contains("names no time zone this system has"))
        }
    }

    @Test(arguments: [
        ("CET-1CEST,M3.5.0,M10.5.0/3", true), ("EST5EDT", true), ("<+03>-3", true), ("JST-9", true),
        ("UTC", false), ("Europe/Berlin", false), ("GM", false), ("<+03", false), ("ABCx", false),
    ])
    func posixRulesAreToldFromZoneNames(text: String, isRule: Bool) {
        #expect(LocalTimeZone.isPOSIXRule(text) == isRule)
    }

    @Test func aZoneFileInTheGivenDirectoryIsHonoured() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try "TZif2".write(toFile: directory.path + "/Test_Zone", atomically: false, encoding: .utf8)
        #expect(LocalTimeZone.problem(environment: ["TZ": "Test_Zone", "TZDIR": directory.path]) == nil)
        #expect(LocalTimeZone.problem(environment: ["TZ": "Other_Zone", "TZDIR": directory.path]) != nil)
    }
}
