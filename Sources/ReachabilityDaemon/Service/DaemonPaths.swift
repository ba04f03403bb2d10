import FoundationEssentials
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

    /// The daemon's own default state directory: the first of systemd's `$STATE_DIRECTORY`
    /// (set by `StateDirectory=`, so a `User=` service gets the directory systemd made for it),
    /// else ``stateDirectory(environment:)``. Only the daemon reads it: a client run by some
    /// other unit must not take that unit's directories for the daemon's.
    public static func serviceStateDirectory(environment: [String: String] = currentEnvironment()) -> String {
        systemdDirectory("STATE_DIRECTORY", environment) ?? stateDirectory(environment: environment)
    }

    /// The daemon's own default control socket: `REACH_SOCKET` when set, else `reach.sock` in
    /// the first of systemd's `$RUNTIME_DIRECTORY` (`RuntimeDirectory=`), else
    /// ``socket(environment:)``. With `RuntimeDirectory=reach` that is `/run/reach/reach.sock`,
    /// where root's clients look, whichever user the service runs as.
    public static func serviceSocket(environment: [String: String] = currentEnvironment()) -> String {
        if let forced = environment["REACH_SOCKET"], forced.hasPrefix("/") { return forced }
        return systemdDirectory("RUNTIME_DIRECTORY", environment).map { $0 + "/reach.sock" } ?? socket(environment: environment)
    }

    /// The first entry of one of systemd's directory variables (a colon-separated list of
    /// absolute paths, one per directory the unit names), when it is set and absolute.
    static func systemdDirectory(_ name: String, _ environment: [String: String]) -> String? {
        guard let value = environment[name], let first = value.split(separator: ":", omittingEmptySubsequences: false).first,
            first.hasPrefix("/"), first.count > 1
        else { return nil }
        var directory = String(first)
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        return directory
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
