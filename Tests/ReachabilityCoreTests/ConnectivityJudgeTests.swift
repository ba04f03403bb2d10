import ReachabilityCore
import Testing

// One round of probes to one connectivity, in Android's order: the RFC 8908 API saying captive
// first, then a portal answer, then HTTPS success, then HTTP success (partial when HTTPS fails).

/// A record reduced to what the judge reads.
private func record(_ kind: ProbeRecord.Kind, _ outcome: ProbeRecord.Outcome, portal: String? = nil) -> ProbeRecord {
    ProbeRecord(url: "http://probe.example/", kind: kind, interface: "wlan0", startedAt: 0, milliseconds: 12, outcome: outcome,
                portalURL: portal, detail: outcome.rawValue)
}

struct JudgeRow: Sendable, CustomTestStringConvertible {
    var name: String
    var records: [ProbeRecord]
    var connectivity: Connectivity
    var portalURL: String? = nil
    var testDescription: String { name }
}

private let api = ProbeRecord.Kind.captivePortalAPI

private let judgeRows: [JudgeRow] = [
    JudgeRow(name: "no records", records: [], connectivity: .limited),
    JudgeRow(name: "HTTP success alone", records: [record(.http, .success)], connectivity: .full),
    JudgeRow(name: "HTTP and HTTPS success", records: [record(.http, .success), record(.https, .success)], connectivity: .full),
    JudgeRow(name: "HTTP success, HTTPS failure", records: [record(.http, .success), record(.https, .failure)], connectivity: .partial),
    JudgeRow(name: "HTTP success, every HTTPS failing", records: [record(.http, .success), record(.https, .failure), record(.https, .failure)],
             connectivity: .partial),
    JudgeRow(name: "HTTP success, one HTTPS of two passing", records: [record(.http, .success), record(.https, .failure), record(.https, .success)],
             connectivity: .full),
    JudgeRow(name: "HTTPS success alone", records: [record(.https, .success)], connectivity: .full),
    JudgeRow(name: "HTTP failure, HTTPS success", records: [record(.http, .failure), record(.https, .success)], connectivity: .full),
    JudgeRow(name: "everything failing", records: [record(.http, .failure), record(.https, .failure)], connectivity: .limited),
    JudgeRow(name: "HTTP failure alone", records: [record(.http, .failure)], connectivity: .limited),
    JudgeRow(name: "HTTP portal beats HTTPS success", records: [record(.http, .portal, portal: "http://login/"), record(.https, .success)],
             connectivity: .portal, portalURL: "http://login/"),
    JudgeRow(name: "HTTP portal without a URL", records: [record(.http, .portal), record(.https, .failure)], connectivity: .portal),
    JudgeRow(name: "the first portal URL named", records: [record(.http, .portal), record(.http, .portal, portal: "http://second/"),
                                                            record(.http, .portal, portal: "http://third/")],
             connectivity: .portal, portalURL: "http://second/"),
    JudgeRow(name: "HTTPS 511 is a portal", records: [record(.http, .failure), record(.https, .portal, portal: "https://login/")],
             connectivity: .portal, portalURL: "https://login/"),
    JudgeRow(name: "the API saying captive is authoritative",
             records: [record(.http, .success), record(.https, .success), record(api, .portal, portal: "https://api-portal/")],
             connectivity: .portal, portalURL: "https://api-portal/"),
    JudgeRow(name: "the API's URL is preferred",
             records: [record(.http, .portal, portal: "http://probe-portal/"), record(api, .portal, portal: "https://api-portal/")],
             connectivity: .portal, portalURL: "https://api-portal/"),
    JudgeRow(name: "the API without a URL takes the probe's",
             records: [record(.http, .portal, portal: "http://probe-portal/"), record(api, .portal)],
             connectivity: .portal, portalURL: "http://probe-portal/"),
    JudgeRow(name: "not captive alone proves nothing", records: [record(api, .notCaptive)], connectivity: .limited),
    JudgeRow(name: "not captive with failing probes", records: [record(.http, .failure), record(.https, .failure), record(api, .notCaptive)],
             connectivity: .limited),
    JudgeRow(name: "not captive with HTTP success", records: [record(.http, .success), record(api, .notCaptive)], connectivity: .full),
    JudgeRow(name: "not captive does not hide a portal", records: [record(.http, .portal, portal: "http://p/"), record(api, .notCaptive)],
             connectivity: .portal, portalURL: "http://p/"),
    JudgeRow(name: "a failed API changes nothing", records: [record(.http, .success), record(.https, .failure), record(api, .failure)],
             connectivity: .partial),
    JudgeRow(name: "a probe kind it does not know is not success",
             records: [record(ProbeRecord.Kind(rawValue: "quic"), .success)], connectivity: .limited),
]

@Suite("Connectivity judge")
struct ConnectivityJudgeTests {
    @Test(arguments: judgeRows)
    func judges(_ row: JudgeRow) {
        let judged = ConnectivityJudge.judge(row.records)
        #expect(judged.connectivity == row.connectivity)
        #expect(judged.portalURL == row.portalURL)
        // The order of the records does not matter, only what they say.
        let reversed = ConnectivityJudge.judge(row.records.reversed())
        #expect(reversed.connectivity == row.connectivity)
    }

    @Test func aValidationKeepsTheRecords() {
        let records = [record(.http, .portal, portal: "http://login/"), record(.https, .failure)]
        let validation = InterfaceValidation(judging: records)
        #expect(validation == InterfaceValidation(connectivity: .portal, portalURL: "http://login/", probes: records))
    }
}
