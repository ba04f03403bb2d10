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

    /// The default socket for this user. Without `XDG_RUNTIME_DIR` (no login session) it is
    /// `reach.sock` in the state directory.
    public static func socket(environment: [String: String] = currentEnvironment()) -> String {
        if geteuid() == 0 { return "/run/reach/reach.sock" }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/reach/reach.sock" }
        return stateDirectory(environment: environment) + "/reach.sock"
    }

    private static func home(_ environment: [String: String]) -> String {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        if let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/tmp"
    }

    /// This process's environment.
    public static func currentEnvironment() -> [String: String] { ProcessInfo.processInfo.environment }
}
