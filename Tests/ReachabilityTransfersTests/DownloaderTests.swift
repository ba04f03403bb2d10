import Foundation
import ReachabilityTransfers
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Collects progress reports from the downloading task.
final class ProgressLog: Sendable {
    private let reports = Mutex<[DownloadProgress]>([])
    func record(_ progress: DownloadProgress) { reports.withLock { $0.append(progress) } }
    var all: [DownloadProgress] { reports.withLock { $0 } }
}

@Suite("Downloader against reach-testserver")
struct DownloaderTests {
    @Test("a full download lands atomically with the right SHA-256")
    func fullDownload() async throws {
        try await withServer { server, downloader in
            let size = 3 << 20
            let bytes = try server.addFile("full.bin", size: size, seed: 1)
            let expected = try sha256sum(server.root + "/full.bin")
            let destination = server.destination("full.bin")
            let progress = ProgressLog()
            let result = try await downloader.download(
                DownloadRequest(url: server.url("full.bin"), destination: destination, expectedSHA256: expected.uppercased())
            ) { progress.record($0) }

            #expect(result.sha256 == expected)
            #expect(result.bytes == Int64(size))
            #expect(result.path == destination)
            #expect(result.restarts == 0)
            #expect(result.bytesRefetched == 0)
            #expect(result.bytesDownloadedTotal == Int64(size))
            #expect(fileBytes(destination) == bytes)
            #expect(!exists(destination + ".part"))
            #expect(!exists(destination + ".part.json"))
            #expect(progress.all.last?.bytesOnDisk == Int64(size))
            #expect(progress.all.allSatisfy { $0.bytesRefetched == 0 })

            let logged = try await server.requests(count: 1)
            #expect(logged.count == 1)
            #expect(logged[0].method == "GET")
            #expect(logged[0].range == nil)
            #expect(logged[0].status == 200)
            #expect(logged[0].bytes == Int64(size))
        }
    }

    @Test("probe reads size and validators; falls back to a ranged GET when HEAD is refused")
    func probe() async throws {
        try await withServer { server, downloader in
            try server.addFile("probe.bin", size: 12345, seed: 2)
            let resource = try await downloader.probe(server.url("probe.bin"))
            #expect(resource.size == 12345)
            #expect(resource.acceptsRanges)
            #expect(resource.etag?.hasPrefix("\"") == true)
            #expect(resource.lastModified?.hasSuffix("GMT") == true)
            #expect(resource.isResumable)

            let fallback = try await downloader.probe(server.url("probe.bin", query: "nohead=1"))
            #expect(fallback.size == 12345)
            #expect(fallback.acceptsRanges)
            #expect(fallback.etag == resource.etag)

            let noRanges = try await downloader.probe(server.url("probe.bin", query: "norange=1"))
            #expect(!noRanges.acceptsRanges)
            #expect(!noRanges.isResumable)

            // HEAD refused and Range ignored: the GET's 200 head is enough, its body is dropped.
            let neither = try await downloader.probe(server.url("probe.bin", query: "nohead=1&norange=1"))
            #expect(neither.size == 12345)
            #expect(!neither.acceptsRanges)

            // The server logs a request when its response is written, so under load two
            // requests can be logged out of order: match them by what they asked for.
            let logged = try await server.requests(count: 6)
            #expect(logged.map(\.method).sorted() == ["GET", "GET", "HEAD", "HEAD", "HEAD", "HEAD"])
            #expect(logged.filter { $0.method == "HEAD" && $0.query.contains("nohead=1") }.map(\.status) == [405, 405])
            let ranged = logged.filter { $0.method == "GET" && !$0.query.contains("norange=1") }
            #expect(ranged.map(\.range) == ["bytes=0-0"])
            #expect(ranged.map(\.status) == [206])
            #expect(logged.filter { $0.method == "GET" && $0.query.contains("norange=1") }.map(\.status) == [200])

            let missing = await #expect(throws: TransferError.self) {
                try await downloader.probe(server.url("missing.bin"))
            }
            #expect(missing?.kind == .httpStatus(404))
        }
    }

    @Test("a cancelled download resumes exactly where it stopped")
    func resumeAfterCancel() async throws {
        try await withServer { server, downloader in
            let size = 256 << 10
            let bytes = try server.addFile("pause.bin", size: size, seed: 3)
            let url = server.url("pause.bin", query: "slow=131072")
            let destination = server.destination("pause.bin")
            let request = DownloadRequest(url: url, destination: destination)

            let (midway, reached) = AsyncStream.makeStream(of: Void.self)
            // One Download across the pause: it keeps its partial file and counters.
            let download = try downloader.prepare(request)
            let task = Task {
                try await download.run(progress: { progress in
                    if progress.bytesOnDisk >= 32 << 10 { reached.yield() }
                })
            }
            for await _ in midway { break }
            task.cancel()
            let cancelled = await #expect(throws: TransferError.self) { try await task.value }
            #expect(cancelled?.kind == .cancelled)

            let partial = try #require(
                (try? FileManager.default.attributesOfItem(atPath: destination + ".part"))?[.size] as? NSNumber
            ).int64Value
            #expect(partial >= 32 << 10)
            #expect(partial < Int64(size))
            #expect(!exists(destination))
            let metadata = try JSONDecoder().decode(
                PartialDownload.self, from: try Data(contentsOf: URL(fileURLWithPath: destination + ".part.json"))
            )
            #expect(metadata.url == url)
            #expect(metadata.size == Int64(size))
            #expect(Array(try #require(fileBytes(destination + ".part"))) == Array(bytes[0..<Int(partial)]))
            let first = try await server.requests(count: 1)

            let result = try await download.run()
            #expect(fileBytes(destination) == bytes)
            #expect(result.bytesRefetched == 0)
            #expect(result.restarts == 0)
            #expect(result.bytesDownloadedTotal == Int64(size))

            let logged = try await server.requests(count: 2)
            #expect(logged.count == 2)
            #expect(logged[1].range == "bytes=\(partial)-")
            #expect(logged[1].ifRange == metadata.etag)
            #expect(logged[1].status == 206)
            #expect(logged[1].start == partial)
            #expect(logged[1].bytes == Int64(size) - partial)
            // The server counts what it wrote to the socket; bytes still in flight when the
            // client cancelled were never written to disk (so they are not "refetched" bytes:
            // the second request starts exactly at the partial file's size, checked above).
            #expect(first[0].bytes >= partial)
        }
    }

    @Test("a resource changed while paused is fetched again from 0, never mixed")
    func etagChange() async throws {
        try await withServer { server, downloader in
            let size = 1 << 20
            let old = try server.addFile("change.bin", size: size, seed: 4)
            let url = server.url("change.bin")
            let before = try await downloader.probe(url)
            let destination = server.destination("change.bin")
            try leavePartial(
                destination: destination, url: url, bytes: old[0..<400_000], size: before.size, etag: before.etag,
                lastModified: before.lastModified
            )
            // The file changes on the server: same size, new bytes, a new mtime (so a new ETag).
            let new = try server.addFile("change.bin", size: size, seed: 5)
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: server.root + "/change.bin"
            )
            let after = try await downloader.probe(url)
            #expect(after.etag != before.etag)

            let result = try await downloader.download(DownloadRequest(url: url, destination: destination, computesSHA256: true))
            #expect(result.sha256 == (try sha256sum(server.root + "/change.bin")))
            #expect(fileBytes(destination) == new)
            #expect(result.restarts == 1)
            #expect(result.bytesRefetched == 0)

            let logged = try await server.requests(count: 3).filter { $0.method == "GET" }
            #expect(logged.count == 1)
            #expect(logged[0].range == "bytes=400000-")
            #expect(logged[0].ifRange == before.etag)
            #expect(logged[0].status == 200)
            #expect(logged[0].bytes == Int64(size))
        }
    }

    @Test("an ETag override on the server (a changed resource) restarts the download")
    func etagOverride() async throws {
        try await withServer { server, downloader in
            let size = 600_000
            let bytes = try server.addFile("override.bin", size: size, seed: 6)
            let url = server.url("override.bin", query: "etag=v2")
            let destination = server.destination("override.bin")
            // What an earlier run left when the server still said "v1"; the bytes are garbage.
            try leavePartial(
                destination: destination, url: url, bytes: ArraySlice(pattern(size: 100_000, seed: 99)),
                size: Int64(size), etag: "\"v1\"", lastModified: nil
            )
            let result = try await downloader.download(DownloadRequest(url: url, destination: destination))
            #expect(fileBytes(destination) == bytes)
            #expect(result.restarts == 1)
            let logged = try await server.requests(count: 1)
            #expect(logged[0].ifRange == "\"v1\"")
            #expect(logged[0].status == 200)
        }
    }

    @Test("a weak ETag is never sent in If-Range; Last-Modified is")
    func weakETagFallsBackToLastModified() async throws {
        try await withServer { server, downloader in
            let size = 500_000
            let bytes = try server.addFile("weak.bin", size: size, seed: 7)
            let url = server.url("weak.bin", query: "etag=W/%22weak%22")
            let resource = try await downloader.probe(url)
            #expect(resource.etag == "W/\"weak\"")
            let destination = server.destination("weak.bin")
            try leavePartial(
                destination: destination, url: url, bytes: bytes[0..<200_000], size: resource.size, etag: resource.etag,
                lastModified: resource.lastModified
            )
            _ = try await downloader.download(DownloadRequest(url: url, destination: destination))
            #expect(fileBytes(destination) == bytes)
            let logged = try await server.requests(count: 2)
            #expect(logged[1].ifRange == resource.lastModified)
            #expect(logged[1].status == 206)
            #expect(logged[1].start == 200_000)
        }
    }

    @Test("a server that ignores Range makes the download restart cleanly from 0")
    func serverWithoutRanges() async throws {
        try await withServer { server, downloader in
            let size = 800_000
            let bytes = try server.addFile("norange.bin", size: size, seed: 8)
            let url = server.url("norange.bin", query: "norange=1")
            let resource = try await downloader.probe(url)
            let destination = server.destination("norange.bin")
            try leavePartial(
                destination: destination, url: url, bytes: bytes[0..<300_000], size: resource.size, etag: resource.etag,
                lastModified: resource.lastModified
            )
            let result = try await downloader.download(DownloadRequest(url: url, destination: destination))
            #expect(fileBytes(destination) == bytes)
            #expect(result.restarts == 1)
            // The server sent the unchanged bytes again: the downloader says so.
            #expect(result.bytesRefetched == 300_000)
            let logged = try await server.requests(count: 2)
            #expect(logged[1].range == "bytes=300000-")
            #expect(logged[1].status == 200)
            #expect(logged[1].bytes == Int64(size))
        }
    }

    @Test("a truncated body is resumed by the retry, without fetching bytes twice", arguments: ["truncate", "reset"])
    func truncatedBody(fault: String) async throws {
        try await withServer { server, downloader in
            let size = 1 << 20
            let bytes = try server.addFile("cut.bin", size: size, seed: 9)
            let destination = server.destination("cut.bin")
            let result = try await downloader.download(
                DownloadRequest(url: server.url("cut.bin", query: "\(fault)=300000"), destination: destination)
            )
            #expect(fileBytes(destination) == bytes)
            #expect(result.bytesRefetched == 0)
            #expect(result.restarts == 0)
            #expect(result.bytesDownloadedTotal == Int64(size))
            // Every byte the downloader received is on disk exactly once.
            #expect(result.bytesDownloadedTotal == Int64(size))
            let logged = try await server.requests(count: 4)
            #expect(logged.first?.status == 200)
            #expect(logged.first?.start == 0)
            #expect(logged.dropFirst().allSatisfy { $0.status == 206 })
            #expect(logged.last?.outcome == "complete")
            #expect(logged.last.map { ($0.start ?? 0) + $0.bytes } == Int64(size))
            // Each resume starts after the previous one (never before: nothing on disk asked again)
            // and no later than what the server sent (bytes the HTTP stack had buffered when the
            // connection died never reached the disk, so they are asked for again).
            for (previous, next) in zip(logged, logged.dropFirst()) {
                let previousStart = previous.start ?? 0
                let nextStart = next.start ?? 0
                #expect(nextStart > previousStart)
                #expect(nextStart <= previousStart + previous.bytes)
                #expect(next.range == "bytes=\(nextStart)-")
            }
        }
    }

    @Test("5xx answers are retried, honouring Retry-After", arguments: [nil, "1"] as [String?])
    func serverErrorsThenSuccess(retryAfter: String?) async throws {
        try await withServer { server, downloader in
            let bytes = try server.addFile("flaky.bin", size: 200_000, seed: 10)
            let destination = server.destination("flaky.bin")
            let query = "fail=2&failstatus=503" + (retryAfter.map { "&retryafter=\($0)" } ?? "")
            let progress = ProgressLog()
            let result = try await downloader.download(
                DownloadRequest(url: server.url("flaky.bin", query: query), destination: destination)
            ) { progress.record($0) }
            #expect(fileBytes(destination) == bytes)
            #expect(result.attempts == 3)
            let waits = progress.all.compactMap(\.retryingAfter)
            #expect(waits.count == 2)
            if retryAfter != nil {
                #expect(waits == [.seconds(1), .seconds(1)])
            } else {
                #expect(waits.allSatisfy { $0 > .zero && $0 <= .milliseconds(200) })
            }
            let logged = try await server.requests(count: 3)
            #expect(logged.map(\.status) == [503, 503, 200])
        }
    }

    @Test("persistent 5xx gives up after maxAttempts with the status")
    func persistentServerError() async throws {
        try await withServer { server, downloader in
            try server.addFile("down.bin", size: 1000, seed: 11)
            let destination = server.destination("down.bin")
            let error = await #expect(throws: TransferError.self) {
                try await downloader.download(
                    DownloadRequest(url: server.url("down.bin", query: "fail=100&failstatus=502"), destination: destination, maxAttempts: 3)
                )
            }
            #expect(error?.kind == .httpStatus(502))
            let logged = try await server.requests(count: 3)
            #expect(logged.count == 3)
            #expect(!exists(destination))
        }
    }

    @Test("404 is a clear error and creates no file")
    func notFound() async throws {
        try await withServer { server, downloader in
            let destination = server.destination("missing.bin")
            let url = server.url("missing.bin")
            let error = await #expect(throws: TransferError.self) {
                try await downloader.download(DownloadRequest(url: url, destination: destination))
            }
            #expect(error?.kind == .httpStatus(404))
            #expect(error?.description.contains(url) == true)
            #expect(!exists(destination))
            #expect(!exists(destination + ".part"))
            #expect(!exists(destination + ".part.json"))
            let logged = try await server.requests(count: 1)
            #expect(logged.count == 1)  // not retried
        }
    }

    @Test("bad URLs fail before any traffic", arguments: ["ftp://HOST/x.bin", "not a url", "http://", "file:///etc/hostname", ""])
    func badURL(template: String) async throws {
        try await withServer { server, downloader in
            let url = template.replacingOccurrences(of: "HOST", with: "\(server.host):\(server.port)")
            let destination = server.destination("bad.bin")
            let error = await #expect(throws: TransferError.self) {
                try await downloader.download(DownloadRequest(url: url, destination: destination))
            }
            #expect(error?.kind == .invalidURL)
            #expect(!exists(destination + ".part"))
            let logged = try server.requests()
            #expect(logged.isEmpty)
        }
    }

    @Test("an unwritable destination fails before any traffic")
    func destinationNotWritable() async throws {
        try await withServer { server, downloader in
            try server.addFile("w.bin", size: 1000, seed: 12)
            let url = server.url("w.bin")
            for destination in [server.scratch + "/no/such/dir/w.bin", server.scratch] {
                let error = await #expect(throws: TransferError.self) {
                    try await downloader.download(DownloadRequest(url: url, destination: destination))
                }
                #expect(error?.kind == .notWritable)
                #expect(error?.description.contains(destination) == true)
            }
            // A read-only directory: permissions for an ordinary user, a read-only mount for root.
            let readOnly = server.scratch + "/ro"
            try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
            var mounted = false
            if getuid() == 0 {
                mounted = (try? run("/bin/mount", ["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", readOnly], allowFailure: true))?.status == 0
            } else {
                chmod(readOnly, 0o555)
            }
            if getuid() != 0 || mounted {
                let error = await #expect(throws: TransferError.self) {
                    try await downloader.download(DownloadRequest(url: url, destination: readOnly + "/w.bin"))
                }
                #expect(error?.kind == .notWritable)
            }
            if mounted { try run("/bin/umount", [readOnly]) }
            let logged = try server.requests()
            #expect(logged.isEmpty)
        }
    }

    @Test("a full disk stops the download with diskFull and keeps a resumable partial", .enabled(if: TmpfsSupport.isSupported, "needs root to mount a small tmpfs"))
    func diskFull() async throws {
        try await withServer { server, downloader in
            let size = 3 << 20
            let bytes = try server.addFile("big.bin", size: size, seed: 13)
            let small = server.scratch + "/small"
            try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
            try run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", small])
            defer { _ = try? run("/bin/umount", [small], allowFailure: true) }

            let destination = small + "/big.bin"
            let request = DownloadRequest(url: server.url("big.bin"), destination: destination)
            let error = await #expect(throws: TransferError.self) { try await downloader.download(request) }
            #expect(error?.kind == .diskFull)
            #expect(error?.description.contains(destination) == true)
            let partial = try #require(
                (try? FileManager.default.attributesOfItem(atPath: destination + ".part"))?[.size] as? NSNumber
            ).int64Value
            #expect(partial > 0)
            #expect(partial <= 1 << 20)
            #expect(exists(destination + ".part.json"))
            #expect(Array(try #require(fileBytes(destination + ".part"))) == Array(bytes[0..<Int(partial)]))

            // Room again: the download resumes at the partial file's length.
            try run("/bin/mount", ["-o", "remount,size=16m", small])
            let result = try await downloader.download(request)
            #expect(fileBytes(destination) == bytes)
            #expect(result.bytesRefetched == 0)
            let logged = try await server.requests(count: 2)
            #expect(logged[1].range == "bytes=\(partial)-")
            #expect(logged[1].status == 206)
        }
    }

    @Test("a partial left by a killed process is resumed from the file's length")
    func resumeAfterKill() async throws {
        try await withServer { server, downloader in
            let size = 2_500_000
            let bytes = try server.addFile("killed.bin", size: size, seed: 14)
            let url = server.url("killed.bin")
            let resource = try await downloader.probe(url)
            let destination = server.destination("killed.bin")
            // The last checkpoint said 500000 bytes; the file (the truth) holds 1000000.
            try leavePartial(
                destination: destination, url: url, bytes: bytes[0..<1_000_000], size: resource.size, etag: resource.etag,
                lastModified: resource.lastModified, recordedBytes: 500_000
            )
            let progress = ProgressLog()
            let result = try await downloader.download(
                DownloadRequest(url: url, destination: destination, expectedSHA256: try sha256sum(server.root + "/killed.bin"))
            ) { progress.record($0) }
            #expect(fileBytes(destination) == bytes)
            #expect(result.bytesDownloadedTotal == Int64(size - 1_000_000))
            #expect(result.bytesRefetched == 0)
            #expect(result.restarts == 0)
            #expect(progress.all.first?.bytesOnDisk == 1_000_000)
            let logged = try await server.requests(count: 2)
            #expect(logged[1].range == "bytes=1000000-")
            #expect(logged[1].ifRange == resource.etag)
            #expect(logged[1].status == 206)
            #expect(logged[1].bytes == Int64(size - 1_000_000))
        }
    }

    @Test("a complete partial is finished from the 416 answer without downloading")
    func completePartial() async throws {
        try await withServer { server, downloader in
            let size = 70_000
            let bytes = try server.addFile("done.bin", size: size, seed: 15)
            let url = server.url("done.bin")
            let resource = try await downloader.probe(url)
            let destination = server.destination("done.bin")
            try leavePartial(
                destination: destination, url: url, bytes: bytes[...], size: resource.size, etag: resource.etag,
                lastModified: resource.lastModified
            )
            let result = try await downloader.download(DownloadRequest(url: url, destination: destination, computesSHA256: true))
            #expect(fileBytes(destination) == bytes)
            #expect(result.bytesDownloadedTotal == 0)
            #expect(result.sha256 == (try sha256sum(destination)))
            let logged = try await server.requests(count: 2)
            #expect(logged[1].status == 416)
            #expect(!exists(destination + ".part.json"))
        }
    }

    @Test("no hash unless asked: a partial left by another process is resumed without reading it back")
    func resumeReadsNothingWithoutHash() async throws {
        try await withServer { server, downloader in
            let partial = 8 << 20
            let bytes = try server.addFile("kept.bin", size: partial + 65_536, seed: 17)
            let url = server.url("kept.bin")
            let resource = try await downloader.probe(url)
            for hashing in [false, true] {
                let destination = server.destination("kept-\(hashing).bin")
                try leavePartial(
                    destination: destination, url: url, bytes: bytes[..<partial], size: resource.size, etag: resource.etag,
                    lastModified: resource.lastModified
                )
                // Out of the page cache now, the partial's bytes come back into it only if read.
                try evictFromPageCache(destination + ".part")
                let result = try await downloader.download(DownloadRequest(url: url, destination: destination, computesSHA256: hashing))
                #expect(fileBytes(destination + ".part") == nil)
                let readBack = try residentBytes(destination, count: partial)
                #expect(result.bytesDownloadedTotal == 65_536)
                #expect(result.sha256 == (hashing ? try sha256sum(destination) : nil))
                if hashing {
                    #expect(readBack == partial, "the prefix is read once to hash it")
                } else {
                    #expect(readBack == 0, "nothing of the partial is read back")
                }
                #expect(fileBytes(destination) == bytes)
            }
        }
    }

    @Test("a partial for another URL, or without metadata, is discarded")
    func unusablePartial() async throws {
        try await withServer { server, downloader in
            let bytes = try server.addFile("other.bin", size: 90_000, seed: 16)
            let destination = server.destination("other.bin")
            try leavePartial(
                destination: destination, url: server.url("elsewhere.bin"), bytes: ArraySlice(pattern(size: 5000, seed: 1)),
                size: 90_000, etag: "\"x\"", lastModified: nil
            )
            let result = try await downloader.download(DownloadRequest(url: server.url("other.bin"), destination: destination))
            #expect(fileBytes(destination) == bytes)
            #expect(result.restarts == 1)

            try Data(pattern(size: 5000, seed: 2)).write(to: URL(fileURLWithPath: destination + "2.part"))
            _ = try await downloader.download(DownloadRequest(url: server.url("other.bin"), destination: destination + "2"))
            #expect(fileBytes(destination + "2") == bytes)
            let logged = try await server.requests(count: 2)
            #expect(logged.allSatisfy { $0.range == nil })
        }
    }

    @Test("a SHA-256 mismatch is an error and leaves no file")
    func checksumMismatch() async throws {
        try await withServer { server, downloader in
            try server.addFile("sum.bin", size: 10_000, seed: 17)
            let destination = server.destination("sum.bin")
            let error = await #expect(throws: TransferError.self) {
                try await downloader.download(
                    DownloadRequest(url: server.url("sum.bin"), destination: destination, expectedSHA256: String(repeating: "0", count: 64))
                )
            }
            #expect(error?.kind == .checksumMismatch)
            #expect(!exists(destination))
            #expect(!exists(destination + ".part"))
            #expect(!exists(destination + ".part.json"))
        }
    }

    @Test("a stalled body times out after the read timeout")
    func readTimeout() async throws {
        try await withServer { server, downloader in
            try server.addFile("stall.bin", size: 1000, seed: 18)
            let destination = server.destination("stall.bin")
            let error = await #expect(throws: TransferError.self) {
                try await downloader.download(
                    DownloadRequest(
                        url: server.url("stall.bin", query: "slow=1"), destination: destination, maxAttempts: 2,
                        readTimeout: .milliseconds(300)
                    )
                )
            }
            #expect(error?.kind == .timedOut)
            // What arrived is kept for a later resume.
            #expect(exists(destination + ".part"))
            #expect(exists(destination + ".part.json"))
        }
    }

    @Test("a refused connection is retried, then reported unreachable")
    func unreachable() async throws {
        let downloader = Downloader(retryPolicy: RetryPolicy(baseDelay: .milliseconds(10), maxDelay: .milliseconds(20)))
        let directory = FileManager.default.temporaryDirectory.path
        // A port nothing listens on: bind one, close it.
        let port = try freePort()
        let error = await #expect(throws: TransferError.self) {
            try await downloader.download(
                DownloadRequest(url: "http://127.0.0.1:\(port)/x", destination: directory + "/reach-unreachable-\(getpid())", maxAttempts: 2)
            )
        }
        try await downloader.shutdownGracefully()
        #expect(error?.kind == .unreachable)
    }

    @Test("the test server exits cleanly on SIGTERM")
    func serverStops() throws {
        let server = try TestServer()
        server.stop()
        #expect(server.exitStatus == 0)
    }
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw TestFailure("bind failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A TLS file server: `openssl s_server -WWW` with a certificate from a throwaway CA.
final class TLSServer {
    let directory: String
    let port: Int
    private let process: Process

    static let isSupported = requiredUnderCI(FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"))

    init() throws {
        var template = Array("/tmp/reach-tls-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        directory = String(cString: made)
        let openssl = "/usr/bin/openssl"
        let d = directory
        try run(openssl, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", d + "/ca.key", "-out", d + "/ca.pem", "-days", "2", "-subj", "/CN=reach test CA"])
        try run(openssl, ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", d + "/server.key", "-out", d + "/server.csr", "-subj", "/CN=127.0.0.1"])
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: d + "/ext.cnf", atomically: false, encoding: .utf8)
        try run(openssl, ["x509", "-req", "-in", d + "/server.csr", "-CA", d + "/ca.pem", "-CAkey", d + "/ca.key",
                          "-CAcreateserial", "-out", d + "/server.pem", "-days", "2", "-extfile", d + "/ext.cnf"])
        process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = ["s_server", "-accept", "127.0.0.1:0", "-cert", d + "/server.pem", "-key", d + "/server.key", "-WWW"]
        process.currentDirectoryURL = URL(fileURLWithPath: d)
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        process.standardInput = Pipe()
        try process.run()
        var text = ""
        while !text.contains("ACCEPT") || !text.hasSuffix("\n") {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { throw TestFailure("openssl s_server exited: \(text)") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT") }),
            let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...])
        else { throw TestFailure("no port in \(text)") }
        self.port = port
    }

    var caFile: String { directory + "/ca.pem" }

    func stop() {
        if process.isRunning {
            // SIGKILL: s_server can inherit a blocked SIGTERM from the test runner's thread.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

@Suite("Downloader over TLS", .enabled(if: TLSServer.isSupported, "needs the openssl command"))
struct TLSDownloadTests {
    @Test("an untrusted certificate is refused; the caFile makes it trusted")
    func caFile() async throws {
        let server = try TLSServer()
        let downloader = Downloader(retryPolicy: RetryPolicy(baseDelay: .milliseconds(10), maxDelay: .milliseconds(20)))
        defer {
            downloader.shutdown()
            server.stop()
        }
        let bytes = pattern(size: 300_000, seed: 21)
        try Data(bytes).write(to: URL(fileURLWithPath: server.directory + "/file.bin"))
        let url = "https://127.0.0.1:\(server.port)/file.bin"
        let destination = server.directory + "/downloaded.bin"

        let refused = await #expect(throws: TransferError.self) {
            try await downloader.download(DownloadRequest(url: url, destination: destination))
        }
        #expect(refused?.kind == .tlsFailure)
        #expect(!exists(destination + ".part"))

        let missingCA = await #expect(throws: TransferError.self) {
            try await downloader.download(DownloadRequest(url: url, destination: destination, caFile: server.directory + "/nope.pem"))
        }
        #expect(missingCA?.kind == .tlsFailure)

        let result = try await downloader.download(DownloadRequest(url: url, destination: destination, caFile: server.caFile))
        #expect(fileBytes(destination) == bytes)
        #expect(result.bytes == Int64(bytes.count))
    }
}
