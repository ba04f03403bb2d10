import Glibc
import ReachabilityDaemon
import Testing

/// The daemon's defaults under systemd: `StateDirectory=` and `RuntimeDirectory=` decide them, so a `User=reach` service finds the directories
/// systemd made for it instead of `$HOME/.local/state` (`/nonexistent`).
struct DaemonPathsTests {
    /// (environment, the state directory, the control socket), without the fallbacks that
    /// depend on who runs the test (nil: the non-systemd default).
    static let cases: [([String: String], String?, String?)] = [
        (["STATE_DIRECTORY": "/var/lib/reach", "RUNTIME_DIRECTORY": "/run/reach"], "/var/lib/reach", "/run/reach/reach.sock"),
        // Several directories in one unit: the first is the daemon's.
        (["STATE_DIRECTORY": "/var/lib/reach:/var/lib/other", "RUNTIME_DIRECTORY": "/run/reach:/run/x"],
         "/var/lib/reach", "/run/reach/reach.sock"),
        // A trailing slash is not doubled.
        (["STATE_DIRECTORY": "/var/lib/reach/", "RUNTIME_DIRECTORY": "/run/reach//"], "/var/lib/reach", "/run/reach/reach.sock"),
        // Relative, empty or the root itself: not a directory systemd would set; ignored.
        (["STATE_DIRECTORY": "var/lib/reach", "RUNTIME_DIRECTORY": ""], nil, nil),
        (["STATE_DIRECTORY": "/", "RUNTIME_DIRECTORY": "/"], nil, nil),
        (["STATE_DIRECTORY": ":/var/lib/reach"], nil, nil),
        // REACH_SOCKET beats the runtime directory, for the daemon as for its clients.
        (["RUNTIME_DIRECTORY": "/run/reach", "REACH_SOCKET": "/srv/reach.sock"], nil, "/srv/reach.sock"),
    ]

    @Test(arguments: cases)
    func serviceDefaultsFollowSystemdsDirectories(environment: [String: String], state: String?, socket: String?) {
        #expect(DaemonPaths.serviceStateDirectory(environment: environment) == state ?? DaemonPaths.stateDirectory(environment: environment))
        #expect(DaemonPaths.serviceSocket(environment: environment) == socket ?? DaemonPaths.socket(environment: environment))
    }

    /// A client (`reach queue`) run inside another unit must not look for the daemon in that
    /// unit's runtime directory.
    @Test func clientsIgnoreSystemdsDirectories() {
        let environment = ["RUNTIME_DIRECTORY": "/run/other", "STATE_DIRECTORY": "/var/lib/other", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(!DaemonPaths.socket(environment: environment).hasPrefix("/run/other"))
        #expect(!DaemonPaths.stateDirectory(environment: environment).hasPrefix("/var/lib/other"))
    }
}
