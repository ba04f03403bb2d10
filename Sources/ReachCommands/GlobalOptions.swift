package import ArgumentParser
package import Reachability
package import ReachabilityCore
import Synchronization

/// Options every command takes: where sysfs is and how to override classification.
package struct GlobalOptions: ParsableArguments {
    @Option(name: .customLong("sysfs-root"), help: ArgumentHelp("Directory standing for /sys.", valueName: "DIR"))
    package var sysfsRoot: String = "/sys"

    @Option(
        name: .customLong("override"),
        help: ArgumentHelp(
            "Set an interface's type and/or cost: PATTERN=TYPE[,expensive|,inexpensive], PATTERN a name glob. Repeatable; beats --config.",
            valueName: "RULE"))
    package var overrides: [String] = []

    @Option(name: .customLong("config"), help: ArgumentHelp("File of override rules, one per line (see README).", valueName: "FILE"))
    package var configFile: String?

    @Option(
        name: .customLong("dhcp-lease-root"),
        help: ArgumentHelp("Directory standing for / when looking for DHCP client leases (metered hints).", valueName: "DIR"))
    package var leaseRoot: String = "/"

    @Option(name: .customLong("netns"), help: ArgumentHelp("Watch the network namespace NAME (from `ip netns add`).", valueName: "NAME"))
    package var namespaceName: String?

    @Option(
        name: .customLong("probe"),
        help: ArgumentHelp(
            "Validate connectivity by fetching URL out of each uplink (http:// detects portals; add an https:// one to detect partial). Repeatable. Off unless given.",
            valueName: "URL"))
    package var probes: [String] = []

    @Option(
        name: .customLong("probe-timeout"),
        help: ArgumentHelp("Seconds one round of probes may take (default 3).", valueName: "SECONDS"))
    package var probeTimeout: String?

    @Option(
        name: .customLong("probe-ca-file"), help: ArgumentHelp("PEM file of extra CAs trusted by https:// probes.", valueName: "FILE"))
    package var probeCAFile: String?

    @Flag(
        name: .customLong("no-wifi-facts"),
        help: "Do not read Wi-Fi facts over nl80211 (network name, access point, signal, the beacon's cost signals).")
    package var noWifiFacts = false

    package init() {}

    /// Parsed `--override` rules, so bad ones fail validation (exit 64) with the offending text.
    package func validate() throws {
        _ = try commandLineRules()
        _ = try commandLineProbeSettings()
        if let namespaceName, namespaceName.isEmpty || namespaceName.contains("/") || namespaceName == "." || namespaceName == ".." {
            throw ValidationError("--netns takes a namespace name from `ip netns list`, not '\(namespaceName)'")
        }
        if let namespaceName, !PathNames.exists(MonitorConfiguration.namespacePath(named: namespaceName)) {
            throw ValidationError("--netns \(namespaceName): no such namespace (see `ip netns list`)")
        }
    }

    private func commandLineRules() throws -> [OverrideRule] {
        var rules: [OverrideRule] = []
        for text in overrides {
            do throws(OverrideRuleError) {
                rules.append(try OverrideRule(parsing: text, origin: "--override"))
            } catch {
                throw ValidationError(error.description)
            }
        }
        return rules
    }

    /// `--probe`, `--probe-timeout`, `--probe-ca-file`, checked (exit 64 with the reason).
    private func commandLineProbeSettings() throws -> ProbeSettings {
        var settings = ProbeSettings()
        for url in probes {
            if let reason = settings.apply(key: "probe", value: url) { throw ValidationError("--probe \(url): \(reason)") }
        }
        if let probeTimeout, settings.apply(key: "probe-timeout", value: probeTimeout) != nil {
            throw ValidationError("--probe-timeout takes seconds from 0.1 to 60, not '\(probeTimeout)'")
        }
        if let probeCAFile {
            guard PathNames.exists(probeCAFile) else { throw ValidationError("--probe-ca-file \(probeCAFile): no such file") }
            settings.caFile = probeCAFile
        }
        return settings
    }

    /// Override rules and probe settings: command line first, then the configuration file.
    package func configuration() throws -> (rules: [OverrideRule], probes: ProbeSettings) {
        var rules = try commandLineRules()
        var probes = try commandLineProbeSettings()
        if let configFile {
            do {
                let file = try ConfigurationFile.load(path: configFile)
                rules += file.rules
                probes = file.probeSettings.overridden(by: probes)
            } catch {
                throw UsageFailure(message: error.description)
            }
        }
        return (rules, probes)
    }

    /// The data budgets of the configuration file (none without one).
    package func configuredBudgets() throws -> [ConfiguredBudget] {
        guard let configFile else { return [] }
        do {
            return try ConfigurationFile.load(path: configFile).budgets
        } catch {
            throw UsageFailure(message: error.description)
        }
    }

    package func monitorConfiguration(debounce: Duration = .zero, counterInterval: Duration? = nil) throws -> MonitorConfiguration {
        let (rules, probes) = try configuration()
        var configuration = MonitorConfiguration(
            overrides: rules, debounce: debounce, sysfsRoot: sysfsRoot, leaseRoot: leaseRoot,
            namespacePath: namespaceName.map(MonitorConfiguration.namespacePath(named:)), validation: probes.validation)
        configuration.readsWifiFacts = !noWifiFacts
        configuration.counterInterval = counterInterval
        return configuration
    }

    /// The monitor these options describe, validating connectivity when a probe is configured.
    /// An executable without a prober (`reach`, which carries no HTTP stack) hands the whole
    /// command to `reach-daemon`, which has one: this process is replaced.
    package func monitor(debounce: Duration = .zero, counterInterval: Duration? = nil) throws -> NetworkMonitor {
        let configuration = try monitorConfiguration(debounce: debounce, counterInterval: counterInterval)
        guard configuration.validation != nil else { return NetworkMonitor(configuration: configuration) }
        guard let makeProber = ConnectivityProbing.makeProber else {
            ExternalCommand(argv: ["reach"] + CommandLine.arguments.dropFirst()).exec()
        }
        return NetworkMonitor(configuration: configuration, prober: makeProber())
    }
}

/// A usage problem found while running (unreadable config file, unknown namespace): exit 64.
package struct UsageFailure: Error, CustomStringConvertible {
    package var message: String
    package init(message: String) { self.message = message }
    package var description: String { message }
}

/// Reports an error on stderr, one line, and maps it to the documented exit code: 64 for a
/// usage problem (including a configuration the monitor cannot use), 1 for anything else.
package func failure(_ error: any Error) -> ExitCode {
    if let exit = error as? ExitCode { return exit }
    if let usage = error as? UsageFailure {
        printError("reach: \(usage.message)")
        return ExitCode(64)
    }
    if let configuration = error as? MonitorConfigurationError {
        printError("reach: \(configuration)")
        return ExitCode(64)
    }
    printError("reach: \(error)")
    return ExitCode(1)
}

/// Where an executable that can probe puts its prober, before parsing: `reach-daemon` does;
/// `reach` does not, and execs `reach-daemon` when a probe is asked for.
package enum ConnectivityProbing {
    private static let factory = Mutex<(@Sendable () -> any ConnectivityProber)?>(nil)

    /// Makes this executable's prober; nil when it has none.
    package static var makeProber: (@Sendable () -> any ConnectivityProber)? {
        get { factory.withLock { $0 } }
        set { factory.withLock { $0 = newValue } }
    }
}
