import Foundation
import ReachabilityLinux
import ReachabilityTestKit

#if canImport(Glibc)
import Glibc
#endif

/// The servers probes talk to, all inside the server namespace on 10.77.0.1: nginx (the HTTP
/// answers of a clear network and of portals, TLS with a certificate from a temporary CA and
/// with an untrusted one, RFC 8908 JSON) and a Python helper (9001 accepts and never answers,
/// 9002 answers something that is not HTTP). Nothing listens on port 9.
///
/// Each server runs under a shell that SIGKILLs it once ``stop()`` asks or the test process is
/// gone, however it died (the test runner blocks SIGTERM, and its children inherit that).
final class ProbeTestServers {
    static let nginx = "/usr/sbin/nginx"
    /// Under `CI=true` the tests run regardless, so a missing tool fails them instead of skipping.
    static let isSupported: Bool = {
        guard TestNamespace.isSupported else { return false }
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        return FileManager.default.isExecutableFile(atPath: nginx)
            && (try? TestNamespace.execute(["sh", "-c", "command -v openssl && command -v python3"])) != nil
    }()

    /// The CA that signed the trusted server's certificate: the validation's `caFile`.
    let caFile: String
    let base: String
    private var processes: [Process] = []

    init(network: ProbeTestNetwork) throws {
        var template = Array("/tmp/reach-probe-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestNamespaceError(message: "mkdtemp failed") }
        base = String(cString: made)
        caFile = base + "/ca.pem"
        do {
            try FileManager.default.createDirectory(atPath: base + "/tmp", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: base + "/www", withIntermediateDirectories: true)
            try Data(repeating: 0x61, count: 1 << 20).write(to: URL(fileURLWithPath: base + "/www/big"))
            try makeCertificates()
            try ProbeTestConfiguration.nginx(base: base).write(toFile: base + "/nginx.conf", atomically: false, encoding: .utf8)
            try ProbeTestConfiguration.python.write(toFile: base + "/helpers.py", atomically: false, encoding: .utf8)
            try start(network.server, name: "nginx", [Self.nginx, "-c", base + "/nginx.conf", "-p", base])
            try start(network.server, name: "helpers", ["/usr/bin/env", "python3", base + "/helpers.py"])
            try waitForListeners(
                network.server, addresses: ["[fd00:77::1]:80"] + [80, 8081, 8443, 8444, 9001, 9002].map { "10.77.0.1:\($0)" })
        } catch {
            stop()
            throw error
        }
    }

    /// Ends every server and removes the scratch directory.
    func stop() {
        _ = FileManager.default.createFile(atPath: base + "/stop", contents: nil)
        for process in processes where process.isRunning { process.waitUntilExit() }
        processes = []
        try? FileManager.default.removeItem(atPath: base)
    }

    /// The log a server wrote, for a failure's message.
    func log(_ name: String) -> String { (try? String(contentsOfFile: "\(base)/\(name).log", encoding: .utf8)) ?? "" }

    private func start(_ namespace: TestNamespace, name: String, _ command: [String]) throws {
        let watch = "parent=$1; stop=$2; shift 2; \"$@\" & pid=$!; "
            + "while kill -0 \"$parent\" 2>/dev/null && kill -0 $pid 2>/dev/null && [ ! -e \"$stop\" ]; do sleep 0.1; done; "
            + "kill -KILL $pid 2>/dev/null; wait $pid"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nsenter")
        process.arguments = ["--net=\(namespace.namespace.path)", "/bin/sh", "-c", watch, "probe-server", String(getpid()), base + "/stop"]
            + command
        let logPath = "\(base)/\(name).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log ?? FileHandle.nullDevice
        process.standardError = log ?? FileHandle.nullDevice
        try process.run()
        processes.append(process)
    }

    /// Polls `ss` inside the namespace until every `address:port` listens (5 s at most).
    private func waitForListeners(_ namespace: TestNamespace, addresses: [String]) throws {
        var missing = addresses
        for _ in 0..<250 {
            let listing = (try? namespace.run(["ss", "-ltnH"])) ?? ""
            missing = addresses.filter { !listing.contains("\($0) ") }
            if missing.isEmpty { return }
            usleep(20_000)
        }
        throw TestNamespaceError(message: "not listening on \(missing): nginx: \(log("nginx")) helpers: \(log("helpers"))")
    }

    /// A CA, a server certificate it signed for IP 10.77.0.1, and a self-signed one for the same
    /// address that nothing trusts.
    private func makeCertificates() throws {
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try "subjectAltName=IP:10.77.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: base + "/server.ext", atomically: false, encoding: .utf8)
        try TestNamespace.execute(
            ["openssl", "req", "-x509"] + key + [
                "-keyout", base + "/ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=reach probe test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try TestNamespace.execute(
            ["openssl", "req"] + key + ["-keyout", base + "/trusted.key", "-out", base + "/trusted.csr", "-subj", "/CN=10.77.0.1"])
        try TestNamespace.execute([
            "openssl", "x509", "-req", "-in", base + "/trusted.csr", "-CA", caFile, "-CAkey", base + "/ca.key", "-CAcreateserial",
            "-out", base + "/trusted.pem", "-days", "2", "-extfile", base + "/server.ext",
        ])
        try TestNamespace.execute(
            ["openssl", "req", "-x509"] + key + [
                "-keyout", base + "/untrusted.key", "-out", base + "/untrusted.pem", "-days", "2", "-subj", "/CN=10.77.0.1",
                "-addext", "subjectAltName=IP:10.77.0.1",
            ])
    }
}
