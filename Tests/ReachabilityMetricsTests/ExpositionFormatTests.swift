import ReachabilityCore
import ReachabilityMetrics
import Testing

@Suite("Exposition format")
struct ExpositionFormatTests {
    static let families: Set<String> = [
        "reach_path_status", "reach_path_expensive", "reach_path_connectivity", "reach_interface_info", "reach_path_changes_total",
        "reach_netlink_overflows_total", "reach_jobs", "reach_transfer_bytes_total", "reach_job_paused_seconds_total",
        "reach_netlink_stats_dumps_total", "reach_budget_used_bytes", "reach_budget_limit_bytes", "reach_budget_state",
        "reach_budget_cycle_end_seconds",
    ]

    @Test func everyFamilyHasItsTypeAndAHelpText() {
        let exposition = Exposition(PromtoolInput.busyMetrics().render())
        #expect(exposition.families == Self.families)
        #expect(Set(exposition.help.keys) == Self.families)
        #expect(exposition.help.values.allSatisfy { $0.count > 20 })
        #expect(exposition.types == [
            "reach_path_status": "gauge", "reach_path_expensive": "gauge", "reach_path_connectivity": "gauge",
            "reach_interface_info": "gauge",
            "reach_path_changes_total": "counter", "reach_netlink_overflows_total": "counter", "reach_jobs": "gauge",
            "reach_transfer_bytes_total": "counter", "reach_job_paused_seconds_total": "counter",
            "reach_netlink_stats_dumps_total": "counter", "reach_budget_used_bytes": "gauge", "reach_budget_limit_bytes": "gauge",
            "reach_budget_state": "gauge", "reach_budget_cycle_end_seconds": "gauge",
        ])
    }

    /// Each budget has its used and limit bytes, a state set and (with cycles) its cycle's end;
    /// a removed budget's series go.
    @Test func budgetsAreSeriesThatGoWithTheBudget() {
        let metrics = ReachMetrics()
        metrics.setBudgets([("sim", 1_500, 2_000, "warning", 1_796_083_200), ("forever", 0, 10, "ok", nil)])
        let text = metrics.render()
        #expect(text.contains(#"reach_budget_used_bytes{budget="sim"} 1500"#))
        #expect(text.contains(#"reach_budget_limit_bytes{budget="sim"} 2000"#))
        #expect(text.contains(#"reach_budget_state{budget="sim",state="warning"} 1"#))
        #expect(text.contains(#"reach_budget_state{budget="sim",state="ok"} 0"#))
        #expect(text.contains(#"reach_budget_cycle_end_seconds{budget="sim"} 1796083200"#))
        #expect(!text.contains(#"reach_budget_cycle_end_seconds{budget="forever"}"#))
        metrics.setBudgets([("forever", 5, 10, "exhausted", nil)])
        let later = metrics.render()
        #expect(!later.contains(#"budget="sim""#))
        #expect(later.contains(#"reach_budget_state{budget="forever",state="exhausted"} 1"#))
    }

    @Test func theContentTypeIsTheTextFormat004() {
        #expect(ReachMetrics.contentType == "text/plain; version=0.0.4; charset=utf-8")
    }

    /// Every line is a comment or a sample, each ends with a line feed, and each family's
    /// samples follow its own `# TYPE` line.
    @Test func samplesFollowTheirFamilysTypeLine() {
        let text = PromtoolInput.busyMetrics().render()
        #expect(text.hasSuffix("\n"))
        var family: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# TYPE ") {
                family = line.split(separator: " ")[2].description
            } else if !line.hasPrefix("# HELP ") {
                let name = line.prefix { $0 != "{" && $0 != " " }
                #expect(String(name) == family, "\(line)")
            }
        }
    }
}
