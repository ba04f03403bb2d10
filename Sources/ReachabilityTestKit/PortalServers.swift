import FoundationEssentials
import Glibc

/// The router's HTTP side of a ``PortalNetwork``: one nginx (the probe endpoint and its portal
/// variants on 10.9.0.1, HTTPS on 10.9.0.1:443, the portal and the RFC 8908 API on 10.9.0.2)
/// and a Python server on 10.9.0.1:8081 that accepts connections and never answers.
final class PortalServers: Sendable {
    let nginx: SpawnedProcess
    let stall: SpawnedProcess
    /// nginx's access log: `ADDRESS:PORT CLIENT "REQUEST" STATUS` a line.
    let accessLog: String
    /// The stalling server's output: a line `accepted` per connection.
    let stallLog: String

    private init(nginx: SpawnedProcess, stall: SpawnedProcess, accessLog: String, stallLog: String) {
        self.nginx = nginx
        self.stall = stall
        self.accessLog = accessLog
        self.stallLog = stallLog
    }

    /// Makes the certificates, starts both servers in `router` and waits until they listen.
    static func start(in router: TestNamespace, scratch: String) throws -> PortalServers {
        let tls = scratch + "/tls"
        try FileManager.default.createDirectory(atPath: tls, withIntermediateDirectories: true)
        try makeCertificates(in: tls)
        let web = scratch + "/nginx"
        for directory in [web, web + "/tmp", web + "/www"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try Data(PortalNetwork.fileContents.utf8).write(to: URL(fileURLWithPath: web + "/www/file"))
        try nginxConfiguration(directory: web, tls: tls).write(toFile: web + "/nginx.conf", atomically: false, encoding: .utf8)
        let nginx = try UploadTestServer.start(
            ["/usr/sbin/nginx", "-p", web, "-c", web + "/nginx.conf", "-e", web + "/error.log"], in: router, scratch: web)
        let stallDirectory = scratch + "/stall"
        try FileManager.default.createDirectory(atPath: stallDirectory, withIntermediateDirectories: true)
        let stall: SpawnedProcess
        do {
            (stall, _) = try UploadTestServer.launch(
                ["/usr/bin/python3", "-u", "-c", stallScript], in: router, scratch: stallDirectory) { $0 == "listening" }
        } catch {
            nginx.stop(grace: .seconds(1))
            throw error
        }
        let servers = PortalServers(nginx: nginx, stall: stall, accessLog: web + "/access.log", stallLog: stallDirectory + "/output.log")
        try servers.waitUntilListening(in: router, log: web + "/error.log")
        return servers
    }

    /// Waits (20 s at most) until nginx listens on all its sockets.
    private func waitUntilListening(in router: TestNamespace, log: String) throws {
        let sockets = ["10.9.0.1:80", "10.9.0.1:443", "10.9.0.2:80", "10.9.0.2:\(PortalNetwork.apiPort)"]
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline && nginx.isRunning {
            let listening = (try? router.run(["ss", "-Hltn"])) ?? ""
            if sockets.allSatisfy({ listening.contains($0 + " ") }) { return }
            usleep(20_000)
        }
        stop()
        let errors = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw TestNamespaceError(message: "nginx did not listen on \(sockets): \(errors)")
    }

    /// Ends both servers.
    func stop() {
        nginx.stop(grace: .seconds(2))
        stall.stop(grace: .seconds(1))
    }

    /// Accepts connections on 10.9.0.1:8081 and keeps them open, silent.
    static let stallScript = """
        import socket
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("\(PortalNetwork.internetAddress)", \(PortalNetwork.stallPort)))
        s.listen(64)
        print("listening", flush=True)
        held = []
        while True:
            c, _ = s.accept()
            held.append(c)
            print("accepted", flush=True)
        """

    /// A CA (`ca.pem`) and a certificate it signed for `probe.test` and 10.9.0.1 (`server.pem`,
    /// `server.key`).
    static func makeCertificates(in d: String) throws {
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try TestNamespace.execute(
            ["openssl", "req", "-x509"] + curve + ["-keyout", d + "/ca.key", "-out", d + "/ca.pem", "-days", "2", "-subj", "/CN=reach portal test CA"])
        try TestNamespace.execute(["openssl", "req"] + curve + ["-keyout", d + "/server.key", "-out", d + "/server.csr", "-subj", "/CN=probe.test"])
        try "subjectAltName=DNS:probe.test,IP:10.9.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: d + "/ext.cnf", atomically: false, encoding: .utf8)
        try TestNamespace.execute([
            "openssl", "x509", "-req", "-in", d + "/server.csr", "-CA", d + "/ca.pem", "-CAkey", d + "/ca.key", "-CAcreateserial",
            "-out", d + "/server.pem", "-days", "2", "-extfile", d + "/ext.cnf",
        ])
    }
}

extension PortalNetwork {
    /// What `http://10.9.0.1/file` serves (for gated downloads).
    public static let fileContents = "the real file, not a portal page\n"
}
