import FoundationEssentials
import ReachabilityCore

/// A local user made for one test (`useradd --system`, no home, no shell), removed with this
/// object: the unprivileged attacker the daemon's sockets, hooks and budgets must withstand.
public final class TestUser: Sendable {
    public let name: String
    public let uid: UInt32
    public let gid: UInt32

    /// Creates the user; needs root.
    public init() throws {
        let name = "reacht" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        _ = try TestNamespace.execute(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", name])
        self.name = name
        guard let uid = UInt32(try TestNamespace.execute(["id", "-u", name]).trimmingBlanks()),
            let gid = UInt32(try TestNamespace.execute(["id", "-g", name]).trimmingBlanks())
        else { throw TestNamespaceError(message: "useradd made \(name) but id cannot tell its uid") }
        self.uid = uid
        self.gid = gid
    }

    /// What runs a command as this user: put it before the command.
    public var prefix: [String] { ["setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"] }

    deinit {
        _ = try? TestNamespace.execute(["userdel", name])
    }
}
