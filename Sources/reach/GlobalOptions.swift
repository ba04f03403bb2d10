import ArgumentParser
import Reachability
import ReachabilityCore
import ReachabilityLinux

/// Options every command takes: where sysfs is and how to override classification.
struct GlobalOptions: ParsableArguments {
    @Option(name: .customLong("sysfs-root"), help: ArgumentHelp("Directory standing for /sys.", valueName: "DIR"))
    var sysfsRoot: String = "/sys"

    @Option(
        name: .customLong("override"),
        help: ArgumentHelp(
            "Set an interface's type and/or cost: PATTERN=TYPE[,expensive|,inexpensive], PATTERN a name glob. Repeatable; beats --config.",
            valueName: "RULE"))
    var overrides: [String] = []

    @Option(name: .customLong("config"), help: ArgumentHelp("File of override rules, one per line (see README).", valueName: "FILE"))
    var configFile: String?

    @Option(
        name: .customLong("dhcp-lease-root"),
        help: ArgumentHelp("Directory standing for / when looking for DHCP client leases (metered hints).", valueName: "DIR"))
    var leaseRoot: String = "/"

    @Option(name: .customLong("netns"), help: ArgumentHelp("Watch the network namespace NAME (from `ip netns add`).", valueName: "NAME"))
    var namespaceName: String?

    /// Parsed `--override` rules, so bad ones fail validation (exit 64) with the offending text.
    func validate() throws {
        _ = try commandLineRules()
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
    func rules() throws -> [OverrideRule] {
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

    func monitorConfiguration(debounce: Duration = .zero) throws -> MonitorConfiguration {
        var netlink = NetlinkConfiguration(sysfs: SysfsReader(root: sysfsRoot), leases: DHCPLeaseReader(root: leaseRoot))
        if let namespaceName {
            do { netlink.namespace = try NetworkNamespace(named: namespaceName) } catch {
                throw UsageFailure(message: "--netns \(namespaceName): \(error)")
            }
        }
        return MonitorConfiguration(overrides: try rules(), debounce: debounce, netlink: netlink)
    }
}

/// A usage problem found while running (unreadable config file, unknown namespace): exit 64.
struct UsageFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Reports an error on stderr, one line, and maps it to the documented exit code.
func failure(_ error: any Error) -> ExitCode {
    if let usage = error as? UsageFailure {
        printError("reach: \(usage.message)")
        return ExitCode(64)
    }
    printError("reach: \(error)")
    return ExitCode(1)
}
