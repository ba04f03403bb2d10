import Foundation
import Glibc

/// Where the daemon keeps its state and listens, by default: as root `/var/lib/reach` and
/// `/run/reach/reach.sock`; otherwise `$XDG_STATE_HOME/reach` (`~/.local/state/reach`) and
/// `$XDG_RUNTIME_DIR/reach/reach.sock`. The client uses the same rule to find the socket.
public enum DaemonPaths {
    /// The default state directory for this user.
    public static func stateDirectory(environment: [String: String] = currentEnvironment()) -> String {
        if geteuid() == 0 { return "/var/lib/reach" }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/reach" }
        return home(environment) + "/.local/state/reach"
    }

    /// The default socket for this user: `REACH_SOCKET` when set (an absolute path), else as
    /// above. Without `XDG_RUNTIME_DIR` (no login session) it is `reach.sock` in the state
    /// directory. The GIO module follows the same rule.
    public static func socket(environment: [String: String] = currentEnvironment()) -> String {
        if let forced = environment["REACH_SOCKET"], forced.hasPrefix("/") { return forced }
        if geteuid() == 0 { return "/run/reach/reach.sock" }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/reach/reach.sock" }
        return stateDirectory(environment: environment) + "/reach.sock"
    }

    /// Where to read the path from: ``socket(environment:)`` when it is there (`REACH_SOCKET`
    /// always), else the system daemon's read-only `/run/reach/path.sock`, which serves every
    /// user. The GIO module follows the same rule.
    public static func pathSocket(environment: [String: String] = currentEnvironment()) -> String {
        let own = socket(environment: environment)
        if environment["REACH_SOCKET"]?.hasPrefix("/") == true || geteuid() == 0 { return own }
        var info = stat()
        if lstat(own, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { return own }
        return "/run/reach/path.sock"
    }

    /// The dispatcher hooks' directory: `/etc/reach/dispatcher.d` as root, else
    /// `$XDG_CONFIG_HOME/reach/dispatcher.d` (`~/.config/reach/dispatcher.d`).
    public static func dispatcherDirectory(environment: [String: String] = currentEnvironment()) -> String {
        if geteuid() == 0 { return "/etc/reach/dispatcher.d" }
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/reach/dispatcher.d" }
        return home(environment) + "/.config/reach/dispatcher.d"
    }

    private static func home(_ environment: [String: String]) -> String {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        if let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/tmp"
    }

    /// This process's environment.
    public static func currentEnvironment() -> [String: String] { ProcessInfo.processInfo.environment }
}
