import FoundationEssentials
import Glibc
public import ReachabilityLinux

/// A private network namespace for one test, with `ip` run inside it.
///
/// The namespace is anonymous (`unshare` on a throwaway thread) and held by a file descriptor:
/// it vanishes with this object, or with the process if a test crashes, so nothing global is
/// left behind and parallel tests never collide.
public final class TestNamespace: Sendable {
    public let namespace: NetworkNamespace

    /// Creates the namespace and brings `lo` up.
    public init() throws {
        do {
            namespace = try NetworkNamespace.createAnonymous()
        } catch {
            throw TestNamespaceError(message: "cannot create a network namespace (\(error)); run as root")
        }
        try ip("link", "set", "lo", "up")
    }

    /// Runs `ip ARGS…` inside the namespace; throws with its stderr if it fails.
    @discardableResult
    public func ip(_ arguments: String...) throws -> String {
        try run(["ip"] + arguments)
    }

    /// Moves the link `name` from this namespace into `other` (`ip link set … netns` takes a
    /// PID: a `sleep` entered into `other` serves, and is gone when this returns).
    public func moveLink(_ name: String, to other: TestNamespace) throws {
        let holder = try SpawnedProcess(["nsenter", "--net=\(other.namespace.path)", "sleep", "30"], output: "/dev/null")
        defer { holder.stop(grace: .zero) }
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: other.namespace.path)) ?? ""
        // nsenter enters the namespace before it execs sleep: wait until it has.
        for _ in 0..<500 {
            let current = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(holder.pid)/ns/net")
            if current == target { break }
            usleep(2_000)
        }
        try ip("link", "set", name, "netns", String(holder.pid))
    }

    /// Runs `ip -batch -` inside the namespace with the given commands, one per line.
    public func ipBatch(_ commands: [String]) throws {
        try run(["ip", "-force", "-batch", "-"], input: commands.joined(separator: "\n") + "\n")
    }

    /// Runs a command inside the namespace (through `nsenter`) and returns its stdout.
    @discardableResult
    public func run(_ command: [String], input: String? = nil) throws -> String {
        try Self.execute(["nsenter", "--net=\(namespace.path)"] + command, input: input)
    }

    /// Runs a command and returns stdout, throwing with stderr on a non-zero exit.
    @discardableResult
    public static func execute(_ command: [String], input: String? = nil) throws -> String {
        let result = try CapturedRun(command, input: Array((input ?? "").utf8))
        guard result.status == 0 else {
            throw TestNamespaceError(
                message: "\(command.joined(separator: " ")) exited \(result.status): \(String(decoding: result.errors, as: UTF8.self))")
        }
        return String(decoding: result.output, as: UTF8.self)
    }

    /// Whether namespace tests run here: always under `CI=true` (so a missing privilege fails
    /// the test instead of skipping it), elsewhere only when a namespace can be created.
    public static let isSupported: Bool = {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        return (try? NetworkNamespace.createAnonymous()) != nil
    }()
}

extension TestNamespace {
    /// Two veth pairs to `peer`: `va` (10.1.0.2/24) and `wa` (10.2.0.2/24) here, `va-peer`
    /// (10.1.0.1/24) and `wa-peer` (10.2.0.1/24) there, with `peerCommands` (`ip` commands) run in
    /// `peer` in the same batch; returns once both links here are up.
    public func wireUplinks(to peer: TestNamespace, peerCommands: [String]) async throws {
        try ipBatch(["link add va type veth peer name va-peer", "link add wa type veth peer name wa-peer"])
        try moveLink("va-peer", to: peer)
        try moveLink("wa-peer", to: peer)
        try ipBatch(["link set va up", "link set wa up", "addr add 10.1.0.2/24 dev va", "addr add 10.2.0.2/24 dev wa"])
        try peer.ipBatch(["link set va-peer up", "link set wa-peer up", "addr add 10.1.0.1/24 dev va-peer", "addr add 10.2.0.1/24 dev wa-peer"] + peerCommands)
        for link in ["va", "wa"] {
            for _ in 0..<300 where !(try ip("link", "show", link).contains("LOWER_UP")) { try await Task.sleep(for: .milliseconds(10)) }
        }
    }
}

public struct TestNamespaceError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
