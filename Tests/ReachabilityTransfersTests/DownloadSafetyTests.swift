import ReachabilityCore
import Foundation
import ReachabilityTransfers
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a destination is before and after: its type, link target and content.
private func describe(_ path: String) -> String {
    var info = stat()
    guard lstat(path, &info) == 0 else { return "missing" }
    switch info.st_mode & S_IFMT {
    case S_IFLNK: return "symlink to " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
    case S_IFIFO: return "fifo"
    case S_IFCHR: return "character device \(info.st_rdev)"
    case S_IFDIR: return "directory"
    case S_IFREG: return "file: " + String(decoding: fileBytes(path) ?? [], as: UTF8.self)
    default: return "other"
    }
}

@Suite("Downloads are safe as root")
struct DownloadSafetyTests {
    @Test(
        "a destination that is not a regular file is refused before any request, and left as it was",
        arguments: ["fifo", "symlink", "device", "directory"])
    func specialDestinationsAreRefused(_ kind: String) async throws {
        try await withServer { server, downloader in
            try server.addFile("a.bin", size: 10_000, seed: 1)
            let destination = server.destination("a.bin")
            let victim = server.destination("victim")
            try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
            switch kind {
            case "fifo": #expect(mkfifo(destination, 0o600) == 0)
            case "symlink": #expect(symlink(victim, destination) == 0)
            // /dev/null's numbers (1, 3), made in the scratch directory: never the real one.
            case "device": #expect(mknod(destination, S_IFCHR | 0o600, dev_t(1 << 8 | 3)) == 0, "mknod needs root")
            default: try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: false)
            }
            let before = describe(destination)
            let error = await #expect(throws: TransferError.self) {
                try await downloader.download(DownloadRequest(url: server.url("a.bin"), destination: destination))
            }
            #expect(error?.kind == .notWritable, "\(String(describing: error))")
            #expect(describe(destination) == before)
            #expect(describe(victim) == "file: precious")
            #expect(try server.requests().isEmpty)
        }
    }

    @Test("a symlink planted at the part file or its sidecar is refused; its target is untouched", arguments: [".part", ".part.json"])
    func plantedSymlinksAreRefused(_ suffix: String) async throws {
        try await withServer { server, downloader in
            try server.addFile("b.bin", size: 10_000, seed: 2)
            let destination = server.destination("b.bin")
            let victim = server.destination("victim")
            try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
            #expect(symlink(victim, destination + suffix) == 0)
            let error = await #expect(throws: TransferError.self) {
                try await downloader.download(DownloadRequest(url: server.url("b.bin"), destination: destination))
            }
            #expect(error?.kind == .notWritable)
            #expect(describe(victim) == "file: precious")
            #expect(describe(destination + suffix) == "symlink to \(victim)")
            #expect(!exists(destination))
            #expect(try server.requests().isEmpty)
        }
    }

    @Test("credentials go as Basic auth and never reach the sidecar, an error or a progress report")
    func credentialsStayOutOfFiles() async throws {
        try await withServer { server, downloader in
            try server.addFile("c.bin", size: 200_000, seed: 3)
            let destination = server.destination("c.bin")
            let url = "http://alice:s3cret@\(server.host):\(server.port)/c.bin?token=hunter2&truncate=50000"
            let error = await #expect(throws: TransferError.self) {
                try await downloader.download(DownloadRequest(url: url, destination: destination, maxAttempts: 1))
            }
            // The body was cut: a partial and its sidecar stay for a resume.
            let sidecar = String(decoding: fileBytes(destination + ".part.json") ?? [], as: UTF8.self)
            #expect(!sidecar.isEmpty)
            for secret in ["s3cret", "hunter2", "alice:"] {
                #expect(!sidecar.contains(secret))
                #expect(!(error?.description.contains(secret) ?? true))
            }
            #expect(sidecar.contains("token=***"))
            // base64("alice:s3cret")
            let sent = try server.requests().flatMap(\.headers)
            #expect(sent.contains("Authorization: Basic YWxpY2U6czNjcmV0"))
            #expect(try server.requests().allSatisfy { !$0.query.contains("alice") })
            #expect(try FileManager.default.attributesOfItem(atPath: destination + ".part.json")[.posixPermissions] as? Int == 0o600)
            #expect(try FileManager.default.attributesOfItem(atPath: destination + ".part")[.posixPermissions] as? Int == 0o600)
        }
    }

    @Test("request headers reach the server")
    func headersAreSent() async throws {
        try await withServer { server, downloader in
            try server.addFile("d.bin", size: 1000, seed: 4)
            _ = try await downloader.download(
                DownloadRequest(
                    url: server.url("d.bin"), destination: server.destination("d.bin"),
                    headers: [HTTPHeaderField(name: "X-Trace", value: "42 a"), HTTPHeaderField(name: "User-Agent", value: "fleet/7")]))
            let sent = try server.requests().flatMap(\.headers)
            #expect(sent.contains("X-Trace: 42 a"))
            #expect(sent.contains("User-Agent: fleet/7"))
        }
    }

    @Test("a replaced file keeps its mode; a new one gets 0666 less the umask")
    func modesAreKept() async throws {
        try await withServer { server, downloader in
            let bytes = try server.addFile("e.bin", size: 5000, seed: 5)
            let existing = server.destination("existing.bin")
            try Data("old".utf8).write(to: URL(fileURLWithPath: existing))
            #expect(chmod(existing, 0o640) == 0)
            _ = try await downloader.download(DownloadRequest(url: server.url("e.bin"), destination: existing))
            #expect(fileBytes(existing) == bytes)
            #expect(try FileManager.default.attributesOfItem(atPath: existing)[.posixPermissions] as? Int == 0o640)

            let fresh = server.destination("fresh.bin")
            let mask = umask(0o027)
            defer { umask(mask) }
            _ = try await downloader.download(DownloadRequest(url: server.url("e.bin"), destination: fresh))
            #expect(try FileManager.default.attributesOfItem(atPath: fresh)[.posixPermissions] as? Int == 0o640)
        }
    }

    @Test("a name too long for the part suffixes still downloads and leaves nothing behind")
    func longNamesWork() async throws {
        try await withServer { server, downloader in
            let bytes = try server.addFile("f.bin", size: 3000, seed: 6)
            let name = String(repeating: "n", count: 250) + ".bin"
            let destination = server.destination(name)
            _ = try await downloader.download(DownloadRequest(url: server.url("f.bin"), destination: destination))
            #expect(fileBytes(destination) == bytes)
            #expect(try FileManager.default.contentsOfDirectory(atPath: server.scratch) == [name])
        }
    }
}

@Suite("Bounded retries")
struct BoundedRetryTests {
    @Test("a redirect loop is a protocol error, not retried")
    func redirectLoopsAreNotRetried() async throws {
        try await withServer { server, downloader in
            try server.addFile("g.bin", size: 1000, seed: 7)
            let error = await #expect(throws: TransferError.self) {
                try await downloader.download(
                    DownloadRequest(url: server.url("g.bin", query: "redirect=self"), destination: server.destination("g.bin"), maxAttempts: 5))
            }
            #expect(error?.kind == .protocolError)
            // One attempt's requests (the cycle is caught at the first repeat); five attempts
            // would have made at least five.
            let logged = try await server.requests(count: 1)
            #expect(logged.count < 5)
            #expect(logged.allSatisfy { $0.status == 302 })
        }
    }

    @Test("a Retry-After in the past means the normal backoff")
    func retryAfterInThePast() async throws {
        try await withServer { server, downloader in
            let bytes = try server.addFile("h.bin", size: 1000, seed: 8)
            let progress = ProgressLog()
            let past = "Sat,+01+Jan+2000+00:00:00+GMT".replacingOccurrences(of: ",", with: "%2C")
            _ = try await downloader.download(
                DownloadRequest(url: server.url("h.bin", query: "fail=1&retryafter=\(past)"), destination: server.destination("h.bin"))
            ) { progress.record($0) }
            #expect(fileBytes(server.destination("h.bin")) == bytes)
            let waits = progress.all.compactMap(\.retryingAfter)
            // The test policy's backoff: 20 ms base, 200 ms at most; not zero, not a day.
            #expect(waits.count == 1)
            #expect(waits.allSatisfy { $0 > .zero && $0 <= .milliseconds(200) })
        }
    }

    @Test("maxRetryTime bounds the waits of the whole download")
    func retryTimeIsBounded() async throws {
        try await withServer { server, downloader in
            try server.addFile("i.bin", size: 1000, seed: 9)
            let error = await #expect(throws: TransferError.self) {
                try await downloader.download(
                    DownloadRequest(
                        url: server.url("i.bin", query: "fail=1000&failstatus=503&retryafter=1"), destination: server.destination("i.bin"),
                        maxAttempts: 100, maxRetryTime: .milliseconds(1500)))
            }
            #expect(error?.kind == .httpStatus(503))
            #expect(error?.detail.contains("gave up") == true)
            // Waits of 1 s each: the first fits in 1.5 s, the second would not.
            #expect(try await server.requests(count: 2).count == 2)
        }
    }
}
