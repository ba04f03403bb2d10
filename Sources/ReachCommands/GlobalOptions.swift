package import ArgumentParser
package import Reachability
package import ReachabilityCore

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

    package init() {}

    /// Parsed `--override` rules, so bad ones fail validation (exit 64) with the offending text.
    package func validate() throws {
        _ = try commandLineRules()
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

    /// All override rules: command line first, then the configuration file.
    package func rules() throws -> [OverrideRule] {
        var rules = try commandLineRules()
        if let configFile {
            do {
                rules += try ConfigurationFile.load(path: configFile).rules
            } catch {
                throw UsageFailure(message: error.description)
            }
        }
        return rules
    }

    package func monitorConfiguration(debounce: Duration = .zero) throws -> MonitorConfiguration {
        MonitorConfiguration(
            overrides: try rules(), debounce: debounce, sysfsRoot: sysfsRoot, leaseRoot: leaseRoot,
            namespacePath: namespaceName.map(MonitorConfiguration.namespacePath(named:)))
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
