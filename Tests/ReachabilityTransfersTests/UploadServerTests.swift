import Foundation
import ReachabilityTestKit
import ReachabilityTransfers
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Uploads to apache2 mod_dav (PUT) and uploadserver (multipart)", .serialized)
struct PlainUploadTests {
    @Test(.enabled(if: apacheReady)) func putToModDavThenGetItBack() async throws {
        let server = try UploadTestServer.dav()
        defer { server.stop() }
        let files = try UploadFiles(size: 5_000_123)
        defer { files.remove() }
        let progress = UploadProgressLog()
        let result = try await withUploader { uploader in
            try await uploader.upload(UploadRequest(file: files.file, url: server.url + "put.bin", mode: .put), progress: progress.record)
        }
        #expect(result.status == 201)
        #expect(result.bytes == Int64(files.size))
        #expect(result.bytesSentTotal == Int64(files.size))
        #expect(result.bytesResent == 0)
        #expect(!result.resumable)
        #expect(progress.last?.position == Int64(files.size))
        // Read back over HTTP, hashed by sha256sum: the bytes apache stored are the file's.
        let copy = files.directory.path + "/copy.bin"
        try run("/usr/bin/curl", ["-sSf", "-o", copy, server.url + "put.bin"])
        #expect(try sha256sum(copy) == files.sha256)
        #expect(try await server.requests(atLeast: 1).filter { $0.hasPrefix("PUT /put.bin 201") }.count == 1)
    }

    @Test(.enabled(if: apacheReady)) func automaticModeFindsNoTusAndPuts() async throws {
        let server = try UploadTestServer.dav()
        defer { server.stop() }
        let files = try UploadFiles(size: 300_000)
        defer { files.remove() }
        let result = try await withUploader { uploader in
            try await uploader.upload(UploadRequest(file: files.file, url: server.url + "auto.bin", stateDirectory: files.stateDirectory))
        }
        #expect(!result.resumable)
        #expect(result.status == 201)
        #expect(try sha256sum(server.directory + "/auto.bin") == files.sha256)
        // OPTIONS asked, then one PUT; no resume record (and no lock) is left behind.
        let logged = try await server.requests(atLeast: 2)
        #expect(logged.map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == ["OPTIONS /auto.bin", "PUT /auto.bin"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.stateDirectory).isEmpty)
    }

    /// Python's http.server answers OPTIONS with 501, others with 405: both mean "no tus", so
    /// the PUT goes at once (it was retried five times and failed without a PUT).
    @Test(arguments: [501, 405]) func aServerWithoutOptionsGetsThePutAtOnce(_ options: Int) async throws {
        let server = try UploadTestServer.putOnly(options: options)
        defer { server.stop() }
        let files = try UploadFiles(size: 200_000)
        defer { files.remove() }
        let result = try await withUploader { uploader in
            try await uploader.upload(UploadRequest(file: files.file, url: server.url + "plain.bin", stateDirectory: files.stateDirectory))
        }
        #expect(result.status == 201)
        #expect(!result.resumable)
        #expect(try sha256sum(server.directory + "/plain.bin") == files.sha256)
        let logged = try await server.requests(atLeast: 2)
        #expect(logged == ["OPTIONS /plain.bin \(options)", "PUT /plain.bin 201"])
    }

    @Test(.enabled(if: apacheReady)) func httpsNeedsTheCAFileToBeTrusted() async throws {
        let server = try UploadTestServer.dav(tls: true)
        defer { server.stop() }
        let files = try UploadFiles(size: 1_500_000)
        defer { files.remove() }
        // Not trusted by the system roots: refused, not retried, nothing stored.
        let error = await #expect(throws: TransferError.self) {
            try await withUploader { uploader in
                try await uploader.upload(UploadRequest(file: files.file, url: server.url + "tls.bin", mode: .put))
            }
        }
        #expect(error?.kind == .tlsFailure)
        #expect(!FileManager.default.fileExists(atPath: server.directory + "/tls.bin"))

        let result = try await withUploader { uploader in
            try await uploader.upload(UploadRequest(file: files.file, url: server.url + "tls.bin", mode: .put, caFile: server.caFile))
        }
        #expect(result.status == 201)
        #expect(try sha256sum(server.directory + "/tls.bin") == files.sha256)
    }

    @Test(.enabled(if: apacheReady)) func aClientErrorIsNotRetried() async throws {
        let server = try UploadTestServer.dav()
        defer { server.stop() }
        let files = try UploadFiles(size: 1000)
        defer { files.remove() }
        // mod_dav refuses a PUT into a collection that does not exist (409 Conflict).
        let error = await #expect(throws: TransferError.self) {
            try await withUploader { uploader in
                try await uploader.upload(UploadRequest(file: files.file, url: server.url + "missing/dir/x.bin", mode: .put))
            }
        }
        #expect(error?.kind == .httpStatus(409))
        #expect(try await server.requests(atLeast: 1).count == 1)
    }

    @Test(.enabled(if: pythonServersReady)) func multipartFormToUploadServer() async throws {
        let server = try UploadTestServer.multipart()
        defer { server.stop() }
        let files = try UploadFiles(size: 2_345_678, name: "form \"upload\".bin")
        defer { files.remove() }
        let result = try await withUploader { uploader in
            try await uploader.upload(UploadRequest(file: files.file, url: server.url, mode: .form(field: "files")))
        }
        #expect(result.status == 204)
        #expect(result.bytesSentTotal == Int64(files.size))
        // The receiver parsed the part and stored the file under its (escaped) name.
        let received = try FileManager.default.contentsOfDirectory(atPath: server.directory)
        #expect(received == ["form %22upload%22.bin"])
        #expect(try sha256sum(server.directory + "/" + received[0]) == files.sha256)
    }

    @Test(.enabled(if: pythonServersReady)) func urlCredentialsAreSentButNeverShown() async throws {
        let server = try UploadTestServer.multipart(credentials: "alice:s3cret")
        defer { server.stop() }
        let files = try UploadFiles(size: 10_000)
        defer { files.remove() }
        let authorized = server.url.replacingOccurrences(of: "http://", with: "http://alice:s3cret@")
        let progress = UploadProgressLog()
        let result = try await withUploader { uploader in
            try await uploader.upload(UploadRequest(file: files.file, url: authorized, mode: .form(field: "files")), progress: progress.record)
        }
        #expect(result.status == 204)
        #expect(try sha256sum(server.directory + "/data.bin") == files.sha256)

        // A wrong password: refused (401, not retried), and the error does not carry it.
        let wrong = server.url.replacingOccurrences(of: "http://", with: "http://alice:WRONGpass@")
        let error = await #expect(throws: TransferError.self) {
            try await withUploader { uploader in
                try await uploader.upload(UploadRequest(file: files.file, url: wrong, mode: .form(field: "files")))
            }
        }
        #expect(error?.kind == .httpStatus(401))
        #expect(error?.url.contains("***@127.0.0.1") == true)
        #expect(error?.description.contains("WRONGpass") == false)
        #expect(UploadRequest(file: "x", url: authorized).redactedURL.contains("s3cret") == false)
    }

    @Test(arguments: ["fifo", "/dev/null", "directory", "missing"])
    func nonRegularSourcesAreRefusedBeforeAnyTraffic(_ kind: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path: String
        switch kind {
        case "fifo":
            path = directory.path + "/pipe"
            #expect(mkfifo(path, 0o600) == 0)
        case "directory": path = directory.path
        case "missing": path = directory.path + "/none"
        default: path = kind
        }
        let listener = try SilentListener()
        let error = await #expect(throws: TransferError.self) {
            try await withUploader { uploader in
                try await uploader.upload(UploadRequest(file: path, url: "http://127.0.0.1:\(listener.port)/x", stateDirectory: directory.path + "/state"))
            }
        }
        #expect(error?.kind == .io)
        #expect(error?.path == path)
        let expected = ["fifo": "is a FIFO", "/dev/null": "is a character device", "directory": "is a directory", "missing": "No such file"][kind]!
        #expect(error?.detail.contains(expected) == true, "\(String(describing: error))")
        #expect(!listener.connectionsWaiting)
        #expect(throws: TransferError.self) { try Uploader.estimate(UploadRequest(file: path, url: "http://127.0.0.1:1/x")) }
    }

    @Test func aRefusedConnectionIsRetriedABoundedNumberOfTimes() async throws {
        let files = try UploadFiles(size: 1000)
        defer { files.remove() }
        // A port that was just listening and no longer is: connections are refused.
        var listener: SilentListener? = try SilentListener()
        let port = listener!.port
        listener = nil
        let progress = UploadProgressLog()
        let error = await #expect(throws: TransferError.self) {
            try await withUploader { uploader in
                try await uploader.upload(UploadRequest(file: files.file, url: "http://127.0.0.1:\(port)/x", mode: .put, maxAttempts: 3), progress: progress.record)
            }
        }
        #expect(error?.kind == .unreachable)
        // Three attempts: two waits between them, then the error.
        #expect(progress.all.filter { $0.retryingAfter != nil }.map(\.attempt) == [1, 2])
    }

    @Test func badURLsAreRefusedBeforeAnyTraffic() async throws {
        let files = try UploadFiles(size: 10)
        defer { files.remove() }
        for url in ["ftp://u:pw@h/x", "http://", "file:///etc/passwd"] {
            let error = await #expect(throws: TransferError.self) {
                try await withUploader { uploader in try await uploader.upload(UploadRequest(file: files.file, url: url)) }
            }
            #expect(error?.kind == .invalidURL)
            #expect(error?.description.contains("pw@") == false)
        }
    }
}
