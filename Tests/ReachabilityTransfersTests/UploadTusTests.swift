import Foundation
import ReachabilityCore
import ReachabilityTestKit
import ReachabilityTransfers
import Testing

/// The file tuspyserver stored for an upload URL (`…/files/UUID` → `FILES_DIR/UUID`).
private func storedFile(_ server: UploadTestServer, _ location: String?) throws -> String {
    server.storedPath(try #require(location))
}

/// Starts `request` in a task and cancels it once the server has stored `bytes` of it.
private func pause(
    _ request: UploadRequest, uploader: Uploader, server: UploadTestServer, after bytes: Int64
) async throws -> (location: String, error: TransferError?) {
    let progress = UploadProgressLog()
    let task = Task { try await uploader.upload(request, progress: progress.record) }
    try await progress.wait { $0.bytesSentThisRun > 0 }
    let directory = try #require(request.stateDirectory)
    let location = try #require(try resumeRecord(in: directory)?.object["location"] as? String)
    try await server.waitForStoredBytes(location, atLeast: bytes)
    task.cancel()
    if case .failure(let error) = await task.result { return (location, error as? TransferError) }
    return (location, nil)
}

@Suite("Uploads to tuspyserver (tus 1.0)", .serialized, .enabled(if: pythonServersReady))
struct TusUploadTests {
    @Test func aWholeUploadCreatesPatchesAndForgetsItsRecord() async throws {
        let server = try UploadTestServer.tus()
        defer { server.stop() }
        let files = try UploadFiles(size: 3_000_001)
        defer { files.remove() }
        let progress = UploadProgressLog()
        let result = try await withUploader { uploader in
            try await uploader.upload(UploadRequest(file: files.file, url: server.url, stateDirectory: files.stateDirectory), progress: progress.record)
        }
        #expect(result.resumable)
        #expect(result.status == 204)
        #expect(result.bytesSentTotal == Int64(files.size))
        #expect(result.bytesResent == 0 && result.resumedFrom == 0)
        #expect(result.location?.hasPrefix(server.url) == true)
        #expect(try sha256sum(try storedFile(server, result.location)) == files.sha256)
        #expect(progress.all.allSatisfy { $0.resumable })
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.stateDirectory).isEmpty)
    }

    @Test func aPausedUploadResumesInTheSameProcessSendingOnlyWhatTheServerLacks() async throws {
        // Under load the pause can land after the kernel's socket buffers already hold the rest
        // of the file, which the server then stores: nothing is left to resume. Such an attempt
        // proves nothing either way, so the scenario is run again (at most 3 times).
        for _ in 1...3 where try await pausedUploadResumes() { return }
        Issue.record("in 3 attempts the pause never landed before the whole file had been sent")
    }

    /// One attempt: false when the pause came too late to leave anything to resume.
    private func pausedUploadResumes() async throws -> Bool {
        // 2 MB/s: the pause lands part-way.
        let server = try UploadTestServer.tus(rate: 2_000_000)
        defer { server.stop() }
        let files = try UploadFiles(size: 6_000_000)
        defer { files.remove() }
        let request = UploadRequest(file: files.file, url: server.url, stateDirectory: files.stateDirectory)
        return try await withUploader { uploader in
            let (location, error) = try await pause(request, uploader: uploader, server: server, after: 1_000_000)
            #expect(error?.kind == .cancelled)

            // The record survives the pause, and the server holds part of the file.
            #expect(try resumeRecord(in: files.stateDirectory)?.object["location"] as? String == location)
            let held = try await settledTusOffset(location, server: server)
            guard held < Int64(files.size) else { return false }
            #expect(held > 0)

            let second = UploadProgressLog()
            let result = try await uploader.upload(request, progress: second.record)
            #expect(result.location == location)
            // This call sent exactly what the server lacked.
            #expect(second.last?.bytesSentThisRun == Int64(files.size) - held)
            #expect(second.all.first.map { $0.position - $0.bytesSentThisRun } == held)
            // Over both calls: everything the server got was sent once; bytes cut off in flight
            // by the pause are the only ones sent again.
            #expect(result.bytesSentTotal - result.bytesResent == Int64(files.size))
            #expect(result.resumedFrom == 0)
            #expect(try sha256sum(try storedFile(server, location)) == files.sha256)
            #expect(try resumeRecord(in: files.stateDirectory) == nil)
            return true
        }
    }

    @Test func aFileThatChangedStartsANewUploadInsteadOfMixing() async throws {
        let server = try UploadTestServer.tus(rate: 2_000_000)
        defer { server.stop() }
        let files = try UploadFiles(size: 4_000_000)
        defer { files.remove() }
        let request = UploadRequest(file: files.file, url: server.url, stateDirectory: files.stateDirectory)
        try await withUploader { uploader in
            let (oldLocation, _) = try await pause(request, uploader: uploader, server: server, after: 500_000)

            // New contents, same size and name.
            try run("/bin/sh", ["-c", "head -c \(files.size) /dev/urandom > '\(files.file)'"])
            let newSHA = try sha256sum(files.file)
            let result = try await uploader.upload(request)
            #expect(result.location != oldLocation)
            #expect(try sha256sum(try storedFile(server, result.location)) == newSHA)
        }
    }

    @Test func anUploadTheServerLostIsCreatedAgain() async throws {
        let server = try UploadTestServer.tus(rate: 2_000_000)
        defer { server.stop() }
        let files = try UploadFiles(size: 3_000_000)
        defer { files.remove() }
        let request = UploadRequest(file: files.file, url: server.url, stateDirectory: files.stateDirectory)
        try await withUploader { uploader in
            let (lost, _) = try await pause(request, uploader: uploader, server: server, after: 500_000)
            _ = try await settledTusOffset(lost, server: server)
            // The termination extension: the server forgets the upload (HEAD then says 404).
            try run("/usr/bin/curl", ["-sSf", "-X", "DELETE", "-H", "Tus-Resumable: 1.0.0", lost])

            let result = try await uploader.upload(request)
            #expect(result.location != lost)
            #expect(try sha256sum(try storedFile(server, result.location)) == files.sha256)
        }
    }

    @Test func credentialsNeverReachTheRecordOrTheResult() async throws {
        let server = try UploadTestServer.tus(credentials: "carol:t0psecret", rate: 2_000_000)
        defer { server.stop() }
        let files = try UploadFiles(size: 3_000_000)
        defer { files.remove() }
        let url = server.url.replacingOccurrences(of: "http://", with: "http://carol:t0psecret@")
        let request = UploadRequest(file: files.file, url: url, stateDirectory: files.stateDirectory)
        try await withUploader { uploader in
            let (location, error) = try await pause(request, uploader: uploader, server: server, after: 500_000)
            // tuspyserver waits for an upload's lock blocking its event loop: resuming while it
            // still reads the interrupted request would stall it (see settledTusOffset).
            _ = try await settledTusOffset(location, server: server, credentials: "carol:t0psecret")
            #expect(error?.kind == .cancelled)
            #expect(error?.description.contains("t0psecret") == false)
            #expect(error?.url.hasPrefix("http://***@127.0.0.1:") == true)

            let record = try #require(try resumeRecord(in: files.stateDirectory))
            #expect(!record.text.contains("t0psecret") && !record.text.contains("carol"))
            #expect(record.object["url"] as? String == server.url)
            let mode = try FileManager.default.attributesOfItem(atPath: files.stateDirectory)[.posixPermissions] as? Int
            #expect(mode == 0o700)
            let recordName = try #require(try FileManager.default.contentsOfDirectory(atPath: files.stateDirectory).first { $0.hasSuffix(".json") })
            let recordMode = try FileManager.default.attributesOfItem(atPath: files.stateDirectory + "/" + recordName)[.posixPermissions] as? Int
            #expect(recordMode == 0o600)

            // The upload URL gets the credentials too (same origin): the resume completes.
            let result = try await uploader.upload(request)
            #expect(result.location?.contains("t0psecret") == false)
            #expect(try sha256sum(try storedFile(server, result.location)) == files.sha256)
        }
    }
}

/// Against the scripted tus endpoint (standard library Python, no venv): servers that misbehave
/// on purpose.
@Suite("Uploads to a scripted tus endpoint", .serialized)
struct ScriptedTusTests {
    /// A server that answers every PATCH with 204 but never moves its offset used to be sent the
    /// file again and again, forever: now each such PATCH is a failed attempt, with backoff,
    /// and the upload fails after `maxAttempts`, having sent the file that many times at most.
    @Test(.timeLimit(.minutes(1))) func aPatchThatDoesNotAdvanceTheOffsetIsAFailedAttempt() async throws {
        let server = try UploadTestServer.scriptedTus(stallingPatches: true)
        defer { server.stop() }
        let files = try UploadFiles(size: 65_536)
        defer { files.remove() }
        let progress = UploadProgressLog()
        var failure: (any Error)?
        do {
            let result = try await withUploader { uploader in
                try await uploader.upload(
                    UploadRequest(file: files.file, url: server.url, maxAttempts: 3, stateDirectory: files.stateDirectory),
                    progress: progress.record)
            }
            Issue.record("the upload succeeded against a server that never advances: \(result)")
        } catch {
            failure = error
        }
        let error = try #require(failure as? TransferError, "\(String(describing: failure))")
        #expect(error.kind == .protocolError)
        #expect(error.description.contains("did not advance"), "\(error)")
        let methods = try await server.requests(atLeast: 7).map { $0.split(separator: " ")[0] }
        #expect(methods == ["OPTIONS", "POST", "PATCH", "HEAD", "PATCH", "HEAD", "PATCH"], "\(methods)")
        #expect(progress.all.filter { $0.retryingAfter != nil }.count == 2)
    }

    /// `-H` credentials go to the URL the user gave, not to an upload URL the server put on
    /// another origin (here the same host, another port); other fields go to both.
    @Test func credentialHeadersDoNotFollowALocationToAnotherOrigin() async throws {
        let uploads = try UploadTestServer.scriptedTus()
        defer { uploads.stop() }
        let creation = try UploadTestServer.scriptedTus(locationOrigin: "http://127.0.0.1:\(uploads.port)")
        defer { creation.stop() }
        let files = try UploadFiles(size: 200_000)
        defer { files.remove() }
        let headers = try ["Authorization: Bearer t0ken", "Cookie: s=1", "X-Album: holidays"].map { try #require(HTTPHeaderField.parse($0)) }
        let result = try await withUploader { uploader in
            try await uploader.upload(UploadRequest(file: files.file, url: creation.url, headers: headers, stateDirectory: files.stateDirectory))
        }
        #expect(result.location?.hasPrefix("http://127.0.0.1:\(uploads.port)/files/") == true)
        let created = creation.requests()
        #expect(!created.isEmpty && created.allSatisfy { $0.hasSuffix("authorization=Bearer t0ken cookie=s=1 x-album=holidays") }, "\(created)")
        let patched = try await uploads.requests(atLeast: 1)
        #expect(patched.contains { $0.hasPrefix("PATCH ") }, "\(patched)")
        #expect(patched.allSatisfy { $0.hasSuffix("authorization=- cookie=- x-album=holidays") }, "\(patched)")
    }
}
