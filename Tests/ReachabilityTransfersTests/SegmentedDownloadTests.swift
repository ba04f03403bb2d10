import Dispatch
import Foundation
import ReachabilityTransfers
import Synchronization
import Testing

private let mebibyte = 1 << 20

/// The GET requests the server logged once their bodies add up to `bytes` (it logs a response
/// when it has finished writing it, which can be just after the client has read it).
private func settledGets(_ server: TestServer, bytes: Int64) async throws -> [LoggedRequest] {
    for _ in 0..<400 {
        let gets = try server.requests().filter { $0.method == "GET" }
        if gets.map(\.bytes).reduce(0, +) >= bytes { return gets }
        try await Task.sleep(for: .milliseconds(25))
    }
    throw TestFailure("the server never logged \(bytes) body bytes: \(try server.requests())")
}

/// The monotonic clock in the server log's unit (microseconds).
private func monotonicMicroseconds() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds / 1000) }

private func partialMetadata(_ destination: String) throws -> PartialDownload {
    try JSONDecoder().decode(PartialDownload.self, from: Data(contentsOf: URL(fileURLWithPath: destination + ".part.json")))
}

/// Leaves what a killed segmented download leaves: `ranges` of `bytes` written in place in a
/// sparse `DEST.part`, and the sidecar recording them.
private func leaveSegments(destination: String, url: String, bytes: [UInt8], ranges: [Range<Int64>], etag: String?, lastModified: String?) throws {
    _ = FileManager.default.createFile(atPath: destination + ".part", contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: destination + ".part"))
    for range in ranges {
        try handle.seek(toOffset: UInt64(range.lowerBound))
        handle.write(Data(bytes[Int(range.lowerBound)..<Int(range.upperBound)]))
    }
    try handle.close()
    let written = ranges.reduce(0) { $0 + Int64($1.count) }
    let metadata = PartialDownload(
        url: url, size: Int64(bytes.count), etag: etag, lastModified: lastModified, bytesWritten: written, completed: ranges)
    try JSONEncoder().encode(metadata).write(to: URL(fileURLWithPath: destination + ".part.json"))
}

private func overlapsAny(_ range: Range<Int64>, _ ranges: [Range<Int64>]) -> Bool {
    ranges.contains { $0.overlaps(range) }
}

@Suite("Segmented downloads against reach-testserver")
struct SegmentedDownloadTests {
    @Test("four connections: disjoint ranges fetched four at once, the file identical")
    func fourConnections() async throws {
        try await withServer { server, downloader in
            let size = 12 * mebibyte
            let bytes = try server.addFile("seg.bin", size: size, seed: 41)
            let expected = try sha256sum(server.root + "/seg.bin")
            let destination = server.destination("seg.bin")
            let progress = ProgressLog()
            // 2 MiB/s per request: the opening 4 MiB take two seconds, long enough for all four
            // connections to be under way at once.
            let request = DownloadRequest(url: server.url("seg.bin", query: "slow=2097152"), destination: destination, expectedSHA256: expected, connections: 4)
            let result = try await downloader.download(request) { progress.record($0) }

            #expect(result.sha256 == expected)
            #expect(fileBytes(destination) == bytes)
            #expect(result.bytesDownloadedTotal == Int64(size))
            #expect(result.bytesRefetched == 0)
            #expect(result.restarts == 0)
            #expect(!exists(destination + ".part"))
            #expect(!exists(destination + ".part.json"))
            let onDisk = progress.all.map(\.bytesOnDisk)
            #expect(onDisk == onDisk.sorted())
            #expect(onDisk.last == Int64(size))

            let gets = try await settledGets(server, bytes: Int64(size))
            #expect(gets.allSatisfy { $0.status == 206 })
            let opening = try #require(gets.first { $0.start == 0 })
            #expect(opening.range == "bytes=0-4194303")
            #expect(opening.ifRange == nil)
            // Every other request names the validator the opening answer carried.
            let validators = Set(gets.filter { $0.start != 0 }.map(\.ifRange))
            #expect(validators.count == 1)
            #expect(validators.first??.hasPrefix("\"") == true)
            // Disjoint ranges that cover the file exactly; every byte sent once.
            let ranges = gets.compactMap(\.requestedRange).sorted { $0.lowerBound < $1.lowerBound }
            #expect(ranges.count == gets.count)
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
            #expect(ranges.last?.upperBound == Int64(size))
            #expect(gets.map(\.bytes).reduce(0, +) == Int64(size))
            #expect(maximumOverlap(gets) == 4)
        }
    }

    @Test("a pause (cancellation) keeps each segment's bytes; the resume fetches only the rest")
    func pauseAndResume() async throws {
        try await withServer { server, downloader in
            let size = 12 * mebibyte
            let bytes = try server.addFile("pause.bin", size: size, seed: 42)
            let destination = server.destination("pause.bin")
            let request = DownloadRequest(url: server.url("pause.bin", query: "slow=2097152"), destination: destination, connections: 4)
            let download = try downloader.prepare(request)
            let (midway, reached) = AsyncStream.makeStream(of: Void.self)
            let task = Task {
                try await download.run(progress: { progress in
                    if progress.bytesOnDisk >= Int64(3 * mebibyte) { reached.yield() }
                })
            }
            for await _ in midway { break }
            task.cancel()
            let cancelled = await #expect(throws: TransferError.self) { try await task.value }
            #expect(cancelled?.kind == .cancelled)

            let metadata = try partialMetadata(destination)
            let completed = try #require(metadata.completed)
            let done = completed.reduce(0) { $0 + Int64($1.count) }
            #expect(done >= Int64(3 * mebibyte))
            #expect(done < Int64(size))
            #expect(metadata.bytesWritten == done)
            // Several segments were under way: more than one range, or one not starting at 0.
            #expect(completed.count > 1 || completed.first?.lowerBound != 0 || done > Int64(4 * mebibyte))
            let partial = try #require(fileBytes(destination + ".part"))
            for range in completed {
                #expect(Array(partial[Int(range.lowerBound)..<Int(range.upperBound)]) == Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)]))
            }

            let resumedAt = monotonicMicroseconds()
            let result = try await download.run()
            #expect(fileBytes(destination) == bytes)
            #expect(result.bytesRefetched == 0)
            #expect(result.restarts == 0)
            // Not one byte received twice over the two runs.
            #expect(result.bytesDownloadedTotal == Int64(size))

            let gets = try await settledGets(server, bytes: Int64(size))
            let resumed = gets.filter { $0.began >= resumedAt }
            #expect(!resumed.isEmpty)
            #expect(resumed.allSatisfy { $0.status == 206 && $0.ifRange == metadata.etag })
            #expect(resumed.allSatisfy { request in request.requestedRange.map { !overlapsAny($0, completed) } ?? false })
            #expect(resumed.map(\.bytes).reduce(0, +) == Int64(size) - done)
        }
    }

    @Test("a partial left by a killed process resumes each missing range, none of the completed ones")
    func resumeAfterKill() async throws {
        try await withServer { server, downloader in
            let size = 9 * mebibyte
            let bytes = try server.addFile("killed.bin", size: size, seed: 43)
            let url = server.url("killed.bin")
            let resource = try await downloader.probe(url)
            let destination = server.destination("killed.bin")
            let completed: [Range<Int64>] = [0..<Int64(mebibyte), Int64(5 * mebibyte)..<Int64(6 * mebibyte + 12345)]
            try leaveSegments(destination: destination, url: url, bytes: bytes, ranges: completed, etag: resource.etag, lastModified: resource.lastModified)
            let expected = try sha256sum(server.root + "/killed.bin")

            let result = try await downloader.download(DownloadRequest(url: url, destination: destination, expectedSHA256: expected, connections: 4))
            #expect(fileBytes(destination) == bytes)
            #expect(result.sha256 == expected)
            #expect(result.restarts == 0)
            #expect(result.bytesRefetched == 0)
            let done = completed.reduce(0) { $0 + Int64($1.count) }
            #expect(result.bytesDownloadedTotal == Int64(size) - done)

            let gets = try await settledGets(server, bytes: Int64(size) - done)
            #expect(gets.allSatisfy { $0.status == 206 && $0.ifRange == resource.etag })
            #expect(gets.allSatisfy { request in request.requestedRange.map { !overlapsAny($0, completed) } ?? false })
            #expect(gets.map(\.bytes).reduce(0, +) == Int64(size) - done)
        }
    }

    @Test("a segmented partial of a resource that changed is given up; the download starts from 0")
    func changedResource() async throws {
        try await withServer { server, downloader in
            let size = 6 * mebibyte
            let bytes = try server.addFile("changed.bin", size: size, seed: 44)
            let url = server.url("changed.bin", query: "etag=v2")
            let destination = server.destination("changed.bin")
            // Bytes of the old version, recorded with its ETag.
            let old = pattern(size: size, seed: 45)
            try leaveSegments(destination: destination, url: url, bytes: old, ranges: [0..<1000, 3_000_000..<4_000_000], etag: "\"v1\"", lastModified: nil)

            let result = try await downloader.download(DownloadRequest(url: url, destination: destination, connections: 4, computesSHA256: true))
            #expect(fileBytes(destination) == bytes)
            #expect(result.restarts == 1)
            #expect(result.sha256 == (try sha256sum(server.root + "/changed.bin")))
            // A ranged request with the old ETag in If-Range got the whole (new) resource.
            let wholeAgain = { (logged: [LoggedRequest]) in logged.contains { $0.method == "GET" && $0.ifRange == "\"v1\"" && $0.status == 200 } }
            #expect(wholeAgain(try await server.requests(until: wholeAgain)))
        }
    }

    @Test("a server that ignores Range gets one connection and one request")
    func rangeIgnored() async throws {
        try await withServer { server, downloader in
            let size = 6 * mebibyte
            let bytes = try server.addFile("norange.bin", size: size, seed: 46)
            let destination = server.destination("norange.bin")
            let result = try await downloader.download(
                DownloadRequest(url: server.url("norange.bin", query: "norange=1"), destination: destination, connections: 4))
            #expect(fileBytes(destination) == bytes)
            #expect(result.restarts == 0)
            #expect(result.bytesDownloadedTotal == Int64(size))
            let gets = try await settledGets(server, bytes: Int64(size))
            #expect(gets.count == 1)
            #expect(gets.first?.status == 200)
            #expect(gets.first?.range == "bytes=0-4194303")
        }
    }

    /// Segments only with a strong ETag: a Last-Modified date or a weak tag may stay the same
    /// across an edit, and segments of two versions would be mixed. One connection then.
    @Test("without a strong ETag the download uses one connection", arguments: ["noetag=1", "etag=W/%22v1%22"])
    func noStrongValidator(_ query: String) async throws {
        try await withServer { server, downloader in
            let size = 6 * mebibyte
            let bytes = try server.addFile("weak.bin", size: size, seed: 48)
            let destination = server.destination("weak.bin")
            let result = try await downloader.download(
                DownloadRequest(url: server.url("weak.bin", query: query), destination: destination, connections: 4))
            #expect(fileBytes(destination) == bytes)
            #expect(result.restarts == 0)
            let gets = try await settledGets(server, bytes: Int64(size))
            // The opening request (a bounded range, refused as the start of segments), then the
            // whole file over one connection: never two requests of one run at once.
            #expect(gets.count == 2, "\(gets.map { $0.range ?? "-" })")
            #expect(gets.last?.range == nil)
        }
    }

    @Test("a file that fits in the opening request is fetched by it alone")
    func smallFile() async throws {
        try await withServer { server, downloader in
            let bytes = try server.addFile("small.bin", size: 3 * mebibyte, seed: 47)
            let destination = server.destination("small.bin")
            let result = try await downloader.download(DownloadRequest(url: server.url("small.bin"), destination: destination, connections: 8, computesSHA256: true))
            #expect(fileBytes(destination) == bytes)
            #expect(result.sha256 == (try sha256sum(server.root + "/small.bin")))
            let gets = try await settledGets(server, bytes: Int64(3 * mebibyte))
            #expect(gets.count == 1)
            #expect(gets.first?.status == 206)
        }
    }

    @Test("the byte limit holds exactly across all connections; admit is asked once")
    func byteLimit() async throws {
        try await withServer { server, downloader in
            let size = 24 * mebibyte
            let bytes = try server.addFile("limit.bin", size: size, seed: 48)
            let destination = server.destination("limit.bin")
            let download = try downloader.prepare(DownloadRequest(url: server.url("limit.bin"), destination: destination, connections: 4))
            let admissions = Mutex<[Int64?]>([])
            let limit: Int64 = 9_000_001
            let error = await #expect(throws: TransferError.self) {
                try await download.run(byteLimit: limit, admit: { remaining in
                    admissions.withLock { $0.append(remaining) }
                    return true
                })
            }
            #expect(error?.kind == .byteLimitReached)
            #expect(admissions.withLock { $0 } == [Int64(size)])
            #expect(download.bytesReceived == limit)
            let metadata = try partialMetadata(destination)
            let completed = try #require(metadata.completed)
            #expect(completed.reduce(0) { $0 + Int64($1.count) } == limit)
            let partial = try #require(fileBytes(destination + ".part"))
            for range in completed {
                #expect(Array(partial[Int(range.lowerBound)..<Int(range.upperBound)]) == Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)]))
            }

            let result = try await download.run()
            #expect(fileBytes(destination) == bytes)
            #expect(result.bytesDownloadedTotal == Int64(size))
            #expect(result.bytesRefetched == 0)
        }
    }

    @Test("a connection cut mid-segment is retried for the rest of its segment", arguments: ["truncate=700000", "reset=700000", "fail=2"])
    func faults(_ fault: String) async throws {
        try await withServer { server, downloader in
            let size = 10 * mebibyte
            let bytes = try server.addFile("fault.bin", size: size, seed: 49)
            let destination = server.destination("fault.bin")
            let result = try await downloader.download(
                DownloadRequest(url: server.url("fault.bin", query: fault), destination: destination, maxAttempts: 5, connections: 4))
            #expect(fileBytes(destination) == bytes)
            #expect(result.bytesRefetched == 0)
            #expect(result.restarts == 0)
            #expect(result.bytesDownloadedTotal == Int64(size))
        }
    }

    @Test("connections outside 1...16 are refused before any traffic", arguments: [0, -1, 17])
    func connectionsOutOfRange(_ connections: Int) async throws {
        try await withServer { server, downloader in
            try server.addFile("any.bin", size: 10, seed: 50)
            let error = #expect(throws: TransferError.self) {
                try downloader.prepare(DownloadRequest(url: server.url("any.bin"), destination: server.destination("any.bin"), connections: connections))
            }
            #expect(error?.kind == .invalidRequest)
            #expect(error?.description.contains("connections must be 1 to 16, not \(connections)") == true)
            #expect(try server.requests().isEmpty)
            _ = try downloader.prepare(DownloadRequest(url: server.url("any.bin"), destination: server.destination("a.bin"), connections: 16))
        }
    }
}
