import Foundation
import ReachabilityLinux
import ReachabilityTestKit
import Testing

/// A built example, beside `reach` in the build directory.
private func example(_ name: String) -> String {
    URL(fileURLWithPath: reachBinary).deletingLastPathComponent().appendingPathComponent(name).path
}

/// Runs `command` inside `namespace` to completion.
private func run(_ command: [String], in namespace: TestNamespace) throws -> ReachResult {
    try shell((["nsenter", "--net=\(namespace.namespace.path)"] + command).map { "'\($0)'" }.joined(separator: " "))
}

/// The examples the README's library section is taken from, run as an adopter would: in a
/// namespace of their own, against loopback only.
@Suite("Examples", .enabled(if: TestNamespace.isSupported), .serialized)
struct ExamplesTests {
    @Test func pathChangesPrintsTheCurrentPathAndTheRouteToLoopback() throws {
        let ns = try TestNamespace()
        let result = try run([example("example-path-changes"), "0"], in: ns)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        // No uplink in a fresh namespace: unreachable; loopback is local.
        #expect(lines.first?.hasPrefix("unreachable not expensive") == true, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("lo ") && $0.hasSuffix(" true") }, "\(result.stdout)")
        #expect(lines.last == "now: unreachable")
    }

    @Test func validatedPathProbesEachUplinkAndFindsThePortal() async throws {
        let network = try await PortalNetwork(dns: .answer)
        defer { network.stop() }
        let full = try run([example("example-validated-path"), "http://\(PortalNetwork.internetAddress)/generate_204"], in: network.client)
        #expect(full.status == 0, "\(full.stderr)")
        let lines = full.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "full -", "\(full.stdout)")
        #expect(lines.contains("va full [\"204 No Content\"]"), "\(full.stdout)")
        #expect(lines.contains("wa full [\"204 No Content\"]"), "\(full.stdout)")
        let portal = try run([example("example-validated-path"), "http://\(PortalNetwork.portalAddress)/generate_204"], in: network.client)
        #expect(portal.stdout.hasPrefix("portal \(PortalNetwork.portalLoginURL)\n"), "\(portal.stdout)")
    }

    @Test func gatedJobRunsOnTheRouteToLoopback() throws {
        let ns = try TestNamespace()
        let result = try run([example("example-gated-job"), "127.0.0.1"], in: ns)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("allowed on local"), "\(result.stdout)")
        #expect(result.stdout.contains("done: 3 steps"))
    }

    @Test func engineDownloadFetchesAFileFromALoopbackServer() async throws {
        let ns = try TestNamespace()
        let files = try TemporaryDirectory()
        defer { files.remove() }
        _ = try TestNamespace.execute(["sh", "-c", "head -c 500000 /dev/urandom > '\(files.path)/file.bin'"])
        let sha = String(try TestNamespace.execute(["sha256sum", files.path + "/file.bin"]).prefix(64))
        let server = try ReachStream(["--root", files.path, "--port", "0"], in: ns, binary: testServerBinary)
        defer { server.stop() }
        let line = try await server.waitForLine { $0.hasPrefix("listening on ") }
        let url = "http://127.0.0.1:\(line.split(separator: ":").last ?? "")/file.bin"
        let result = try run([example("example-engine-download"), url, files.path + "/copy.bin", sha], in: ns)
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.split(separator: "\n").last == "succeeded 500000 500000")
        #expect(try TestNamespace.execute(["sha256sum", files.path + "/copy.bin"]).hasPrefix(sha))

        let missing = try run([example("example-engine-download"), url + ".missing", files.path + "/none.bin"], in: ns)
        #expect(missing.status == 1)
        #expect(missing.stdout.contains("failed:"))
    }
}
