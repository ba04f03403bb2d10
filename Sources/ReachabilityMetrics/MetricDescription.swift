/// A metric family's name and its `# HELP` text: the one place both are written, so the names
/// the issue fixes and what they mean stay side by side.
struct MetricDescription: Sendable, Hashable {
    let name: String
    let help: String
}

extension MetricDescription {
    static let pathStatus = MetricDescription(
        name: "reach_path_status",
        help: "The transport of the current network path, as a state set: 1 for the current status, 0 for the others "
            + "(all 0 before the first path).")
    static let pathExpensive = MetricDescription(
        name: "reach_path_expensive",
        help: "1 if traffic over the current path is paid for by volume (cellular, a tethered phone, a rule), else 0.")
    static let pathConnectivity = MetricDescription(
        name: "reach_path_connectivity",
        help: "What connectivity validation found for the current path, as a state set: 1 for the current value "
            + "(unknown when not probing), 0 for the others.")
    static let interfaceInfo = MetricDescription(
        name: "reach_interface_info",
        help: "1 for each interface in the current path, with its name, classified type and own cost; "
            + "an interface that went away has no series.")
    static let pathChanges = MetricDescription(
        name: "reach_path_changes_total",
        help: "Paths observed whose status, cost or set of interfaces (name, type, cost) differed from the previous one.")
    static let netlinkOverflows = MetricDescription(
        name: "reach_netlink_overflows_total",
        help: "Netlink receive buffer overflows: kernel events were lost and the monitor resynchronised from a full dump.")
    static let counterDumps = MetricDescription(
        name: "reach_netlink_stats_dumps_total",
        help: "Link dumps made to read the interfaces' byte statistics (IFLA_STATS64) for data budgets: one per count interval.")
    static let jobs = MetricDescription(
        name: "reach_jobs",
        help: "Jobs in the daemon's queue, by state.")
    static let transferBytes = MetricDescription(
        name: "reach_transfer_bytes_total",
        help: "Bytes transferred by jobs, by direction and by the type of network that carried them.")
    static let pausedSeconds = MetricDescription(
        name: "reach_job_paused_seconds_total",
        help: "Seconds jobs spent paused, by the reason they were paused.")

    static let budgetUsed = MetricDescription(
        name: "reach_budget_used_bytes",
        help: "Bytes counted against a data budget in its current cycle (all traffic of the interfaces it counts, from the kernel's counters).")
    static let budgetLimit = MetricDescription(name: "reach_budget_limit_bytes", help: "A data budget's limit per cycle, in bytes.")
    static let budgetState = MetricDescription(
        name: "reach_budget_state",
        help: "A data budget's state, as a state set: 1 for the current state (ok, warning, exhausted, snoozed), 0 for the others.")
    static let budgetCycleEnd = MetricDescription(
        name: "reach_budget_cycle_end_seconds", help: "When a data budget's current cycle ends, in seconds since 1970 (no series without cycles).")

    /// Every family, for the factory's help lookup.
    static let all: [MetricDescription] = [
        pathStatus, pathExpensive, pathConnectivity, interfaceInfo, pathChanges, netlinkOverflows, counterDumps, jobs, transferBytes, pausedSeconds,
        budgetUsed, budgetLimit, budgetState, budgetCycleEnd,
    ]
}
