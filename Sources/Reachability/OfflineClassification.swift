public import ReachabilityCore
import ReachabilityLinux

extension NetworkMonitor {
    /// The interfaces under `configuration.sysfsRoot`/class/net, classified from sysfs alone
    /// with the configuration's rules: no netlink, so no addresses. For a copy of another
    /// machine's `/sys/class/net` (a bug report) or a fixture tree.
    public static func offlineInterfaces(configuration: MonitorConfiguration) throws(MonitorConfigurationError) -> [Interface] {
        let facts: [InterfaceFacts]
        do throws(SysfsError) {
            facts = try SysfsReader(root: configuration.sysfsRoot).offlineInterfaces()
        } catch {
            throw MonitorConfigurationError(setting: "sysfs root", value: configuration.sysfsRoot, reason: error.description)
        }
        let evaluator = PathEvaluator(classifier: Classifier(overrides: configuration.overrides))
        return evaluator.evaluate(NetworkSnapshot(interfaces: facts)).interfaces
    }
}
