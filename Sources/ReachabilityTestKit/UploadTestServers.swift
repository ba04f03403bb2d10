import FoundationEssentials
import ReachabilityLinux

#if canImport(Glibc)
import Glibc
#endif

/// A real upload server for a test, listening on 127.0.0.1 or a given IPv4 address (inside a
/// ``TestNamespace`` when given), with its own scratch directory; ``stop()`` ends it and removes the directory.
///
/// - ``tus(in:credentials:rate:)``: tuspyserver (PyPI), a tus 1.0 server, under uvicorn;
///   uploads are created at ``url``.
/// - ``dav(in:)``: apache2 with mod_dav, accepting `PUT` anywhere under ``url``.
/// - ``multipart(in:credentials:)``: uploadserver (PyPI), accepting `multipart/form-data`
///   `POST`s to `/upload` with the file in the field `files`.
///
/// The Python servers live in the venv `scripts/testservers/setup.sh` makes
/// (`.build/testservers-venv`, or `$REACH_TESTSERVERS_VENV`); apache2 comes from Debian.
///
public final class UploadTestServer: Sendable {
    /// Where uploads land: the tus files directory, the DAV document root, uploadserver's
    /// directory.
    public let directory: String
    /// The port on the server's address.
    public let port: Int
    /// The URL uploads go to: `…/files/` (tus), `…/` (DAV), `…/upload` (multipart).
    public let url: String
    private let scratch: String
    /// The CA that signed an HTTPS server's certificate (PEM), nil for plain HTTP.
    public let caFile: String?
    private let process: SpawnedProcess
    private let accessLog: String?

    private init(
        directory: String, port: Int, url: String, scratch: String, process: SpawnedProcess, accessLog: String? = nil,
        caFile: String? = nil
    ) {
        self.directory = directory
        self.port = port
        self.url = url
        self.scratch = scratch
        self.process = process
        self.accessLog = accessLog
        self.caFile = caFile
    }

    /// The package's root directory (holding `Package.swift`), found from the running binary.
    public static let packageRoot: String? = {
        var directory = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "/")
        while directory.path != "/" {
            directory.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("scripts/testservers/tus_app.py").path) {
                return directory.path
            }
        }
        return nil
    }()

    /// The venv's Python, when the servers are installed.
    public static let python: String? = {
        let venv = ProcessInfo.processInfo.environment["REACH_TESTSERVERS_VENV"] ?? packageRoot.map { $0 + "/.build/testservers-venv" }
        guard let python = venv.map({ $0 + "/bin/python" }), FileManager.default.isExecutableFile(atPath: python) else { return nil }
        return python
    }()

    /// Whether tuspyserver and uploadserver are installed.
    public static var pythonServersAvailable: Bool { python != nil && packageRoot != nil }

    /// Whether apache2 is installed.
    public static var apacheAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/apache2") }

    /// tuspyserver on a kernel-chosen port. `credentials` (`user:password`) makes it require
    /// HTTP Basic; `rate` limits how fast it reads request bodies (bytes per second).
    public static func tus(
        in namespace: TestNamespace? = nil, address: String = "127.0.0.1", credentials: String? = nil, rate: Int? = nil
    ) throws -> UploadTestServer {
        guard let python, let root = packageRoot else { throw missing("tuspyserver (run scripts/testservers/setup.sh)") }
        let scratch = try makeScratch("tus")
        let files = scratch + "/files"
        var arguments = [python, root + "/scripts/testservers/tus_app.py", files, "--host", address]
        if let credentials { arguments += ["--auth", credentials] }
        if let rate { arguments += ["--rate", String(rate)] }
        let (process, line) = try launch(arguments, in: namespace, scratch: scratch) { $0.hasPrefix("listening on ") }
        guard let port = line.split(separator: ":").last.flatMap({ Int($0) }) else { throw failure("tus server said '\(line)'", scratch) }
        return UploadTestServer(directory: files, port: port, url: "http://\(address):\(port)/files/", scratch: scratch, process: process)
    }

    /// A scripted tus endpoint (`scripts/testservers/tus_scripted.py`, standard library only)
    /// on a kernel-chosen port: `stallingPatches` answers every `PATCH` without moving the
    /// offset; `locationOrigin` puts the uploads it creates on another origin. ``requests()``
    /// lists `METHOD PATH auth=… cookie=… x-album=…` per request.
    public static func scriptedTus(stallingPatches: Bool = false, locationOrigin: String? = nil) throws -> UploadTestServer {
        guard let root = packageRoot else { throw missing("the package's scripts/testservers") }
        let scratch = try makeScratch("tus-scripted")
        var arguments = ["/usr/bin/python3", "-u", root + "/scripts/testservers/tus_scripted.py", scratch + "/requests.log"]
        if stallingPatches { arguments += ["--patch", "stall"] }
        if let locationOrigin { arguments += ["--location-origin", locationOrigin] }
        let (process, line) = try launch(arguments, in: nil, scratch: scratch) { $0.hasPrefix("listening on ") }
        guard let port = line.split(separator: ":").last.flatMap({ Int($0) }) else { throw failure("scripted tus server said '\(line)'", scratch) }
        return UploadTestServer(
            directory: scratch, port: port, url: "http://127.0.0.1:\(port)/files/", scratch: scratch, process: process,
            accessLog: scratch + "/requests.log")
    }

    /// A plain PUT server (`scripts/testservers/put_only.py`, standard library only) that
    /// answers `OPTIONS` with `options` (501 as Python's http.server does, or 405).
    /// ``requests()`` lists `METHOD PATH STATUS` per request.
    public static func putOnly(options: Int = 501) throws -> UploadTestServer {
        guard let root = packageRoot else { throw missing("the package's scripts/testservers") }
        let scratch = try makeScratch("put-only")
        let files = scratch + "/received"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        let arguments = [
            "/usr/bin/python3", "-u", root + "/scripts/testservers/put_only.py", files, scratch + "/requests.log", "--options", String(options),
        ]
        let (process, line) = try launch(arguments, in: nil, scratch: scratch) { $0.hasPrefix("listening on ") }
        guard let port = line.split(separator: ":").last.flatMap({ Int($0) }) else { throw failure("put-only server said '\(line)'", scratch) }
        return UploadTestServer(
            directory: files, port: port, url: "http://127.0.0.1:\(port)/", scratch: scratch, process: process,
            accessLog: scratch + "/requests.log")
    }

    /// uploadserver on a kernel-chosen port; `credentials` (`user:password`) makes uploads
    /// require HTTP Basic.
    public static func multipart(in namespace: TestNamespace? = nil, credentials: String? = nil) throws -> UploadTestServer {
        guard let python else { throw missing("uploadserver (run scripts/testservers/setup.sh)") }
        let scratch = try makeScratch("multipart")
        let files = scratch + "/received"
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        var arguments = [python, "-u", "-m", "uploadserver", "0", "--bind", "127.0.0.1", "--directory", files]
        if let credentials { arguments += ["--basic-auth-upload", credentials] }
        let (process, line) = try launch(arguments, in: namespace, scratch: scratch) { $0.contains("Serving HTTP on") }
        // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
        let words = line.split(separator: " ")
        guard let index = words.firstIndex(of: "port"), index + 1 < words.count, let port = Int(words[index + 1]) else {
            throw failure("uploadserver said '\(line)'", scratch)
        }
        return UploadTestServer(directory: files, port: port, url: "http://127.0.0.1:\(port)/upload", scratch: scratch, process: process)
    }

    /// Where tuspyserver keeps the data of the upload at `location` (`…/files/UUID`).
    public func storedPath(_ location: String) -> String {
        directory + "/" + (location.split(separator: "/").last.map(String.init) ?? "")
    }

    /// Waits (20 s at most) until the server has stored at least `bytes` of the upload at
    /// `location`: tuspyserver confirms its offset only when a `PATCH` ends, but writes the
    /// data as it arrives.
    public func waitForStoredBytes(_ location: String, atLeast bytes: Int64) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            var info = stat()
            let size = stat(storedPath(location), &info) == 0 ? Int64(info.st_size) : 0
            if size >= bytes { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestNamespaceError(message: "the server did not store \(bytes) bytes of \(location)")
    }

    /// Lines of the server's output (and of apache's error log), for failure messages.
    public var log: String {
        let files = [scratch + "/output.log", scratch + "/error.log"]
        return files.compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }.joined(separator: "\n")
    }

    /// The access log: apache's `METHOD PATH STATUS BYTES-RECEIVED` per request (DAV), the
    /// scripted tus endpoint's `METHOD PATH auth=… cookie=… x-album=…`; empty for the others.
    public func requests() -> [String] {
        guard let accessLog, let text = try? String(contentsOfFile: accessLog, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// apache's access log once it has at least `count` lines (it writes a line when a
    /// request ends, which can be just after the client has its answer); 5 s at most.
    public func requests(atLeast count: Int) async throws -> [String] {
        for _ in 0..<250 where requests().count < count { try await Task.sleep(for: .milliseconds(20)) }
        return requests()
    }

    /// Ends the server and every process it started (SIGTERM, SIGKILL after 5 s) and
    /// removes its directory.
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: scratch)
    }

    // MARK: Launching

    static func makeScratch(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reach-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func missing(_ what: String) -> TestNamespaceError {
        TestNamespaceError(message: "\(what) is not installed")
    }

    static func failure(_ message: String, _ scratch: String) -> TestNamespaceError {
        let output = (try? String(contentsOfFile: scratch + "/output.log", encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: scratch)
        return TestNamespaceError(message: "\(message); output: \(output)")
    }

    /// Starts `arguments` (through `nsenter` into `namespace`), its output into
    /// `scratch/output.log`, and waits (20 s at most) for a line `ready` accepts.
    static func launch(
        _ arguments: [String], in namespace: TestNamespace?, scratch: String, ready: (String) -> Bool
    ) throws -> (SpawnedProcess, String) {
        let process = try start(arguments, in: namespace, scratch: scratch)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let output = (try? String(contentsOfFile: scratch + "/output.log", encoding: .utf8)) ?? ""
            if let line = output.split(separator: "\n").map(String.init).first(where: ready) { return (process, line) }
            if !process.isRunning { break }
            usleep(20_000)
        }
        process.stop(grace: .seconds(1))
        throw failure("\(arguments.joined(separator: " ")) did not start", scratch)
    }

    static func start(_ arguments: [String], in namespace: TestNamespace?, scratch: String) throws -> SpawnedProcess {
        let command = (namespace.map { ["nsenter", "--net=\($0.namespace.path)"] } ?? []) + arguments
        return try SpawnedProcess(command, output: scratch + "/output.log")
    }
}

extension UploadTestServer {
    /// apache2 with mod_dav on 127.0.0.1, from a configuration of its own (no system one is
    /// read). As root its children run as `nobody`, which owns the document root. With `tls`
    /// it speaks HTTPS (mod_ssl) with a certificate for 127.0.0.1 from a throwaway CA
    /// (``caFile``).
    public static func dav(in namespace: TestNamespace? = nil, address: String = "127.0.0.1", tls: Bool = false) throws -> UploadTestServer {
        guard apacheAvailable else { throw missing("apache2 (run scripts/setup.sh apache2)") }
        var lastError: (any Error)?
        for _ in 0..<3 {
            let scratch = try makeScratch("dav")
            do {
                if tls { try makeCertificates(in: scratch) }
                let port = namespace == nil ? freePort() : Int.random(in: 20000...40000)
                return try startDav(port: port, address: address, in: namespace, scratch: scratch, tls: tls)
            } catch {
                lastError = error
            }
        }
        throw lastError ?? missing("apache2")
    }

    private static func startDav(port: Int, address: String, in namespace: TestNamespace?, scratch: String, tls: Bool) throws -> UploadTestServer {
        let root = scratch + "/root"
        let lock = scratch + "/lock"
        for directory in [root, lock] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // The children write here; as root they run as nobody.
            if getuid() == 0 { chown(directory, 65534, 65534) }
        }
        let configuration = """
            ServerRoot "\(scratch)"
            ServerName \(address)
            Listen \(address):\(port)
            PidFile \(scratch)/httpd.pid
            ErrorLog \(scratch)/error.log
            LogLevel notice
            LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
            LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
            LoadModule dav_module /usr/lib/apache2/modules/mod_dav.so
            LoadModule dav_fs_module /usr/lib/apache2/modules/mod_dav_fs.so
            User #65534
            Group #65534
            LogFormat "%m %U %>s %I" upload
            CustomLog \(scratch)/access.log upload
            DocumentRoot \(root)
            DavLockDB \(lock)/DavLock
            LimitRequestBody 0
            <Directory \(root)>
                Dav On
                Require all granted
            </Directory>

            """ + (tls ? """
                LoadModule ssl_module /usr/lib/apache2/modules/mod_ssl.so
                SSLEngine on
                SSLCertificateFile \(scratch)/server.pem
                SSLCertificateKeyFile \(scratch)/server.key

                """ : "")
        try configuration.write(toFile: scratch + "/httpd.conf", atomically: false, encoding: .utf8)
        let process = try start(["/usr/sbin/apache2", "-f", scratch + "/httpd.conf", "-DFOREGROUND"], in: namespace, scratch: scratch)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline && process.isRunning {
            let log = (try? String(contentsOfFile: scratch + "/error.log", encoding: .utf8)) ?? ""
            if log.contains("resuming normal operations") {
                return UploadTestServer(
                    directory: root, port: port, url: "\(tls ? "https" : "http")://\(address):\(port)/", scratch: scratch,
                    process: process, accessLog: scratch + "/access.log", caFile: tls ? scratch + "/ca.pem" : nil)
            }
            usleep(20_000)
        }
        process.stop(grace: .seconds(1))
        let log = (try? String(contentsOfFile: scratch + "/error.log", encoding: .utf8)) ?? ""
        throw failure("apache2 did not start: \(log)", scratch)
    }

    /// A CA (`ca.pem`) and a certificate for 127.0.0.1 it signed (`server.pem`, `server.key`).
    static func makeCertificates(in directory: String) throws {
        let d = directory
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try TestNamespace.execute(["openssl", "req", "-x509"] + curve + ["-keyout", d + "/ca.key", "-out", d + "/ca.pem", "-days", "2", "-subj", "/CN=reach upload test CA"])
        try TestNamespace.execute(["openssl", "req"] + curve + ["-keyout", d + "/server.key", "-out", d + "/server.csr", "-subj", "/CN=127.0.0.1"])
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: d + "/ext.cnf", atomically: false, encoding: .utf8)
        try TestNamespace.execute([
            "openssl", "x509", "-req", "-in", d + "/server.csr", "-CA", d + "/ca.pem", "-CAkey", d + "/ca.key", "-CAcreateserial",
            "-out", d + "/server.pem", "-days", "2", "-extfile", d + "/ext.cnf",
        ])
    }

    /// A port nothing listens on now (bound to port 0, then released).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : Int.random(in: 20000...40000)
    }
}
