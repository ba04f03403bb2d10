import Foundation
import ReachabilityTransfers
import Testing

/// Not a test: a measurement, run on demand (best in release):
///
///     REACH_TRANSFERS_BENCH=256 swift test -c release --filter ThroughputBenchmark
///
/// Downloads a file of that many MiB from reach-testserver on 127.0.0.1 (SHA-256 computed on the
/// way, as always) and prints MiB/s, next to curl's figure for the same file when curl exists.
@Suite("Throughput benchmark", .enabled(if: ProcessInfo.processInfo.environment["REACH_TRANSFERS_BENCH"] != nil))
struct ThroughputBenchmark {
    @Test func singleDownload() async throws {
        let mebibytes = Int(ProcessInfo.processInfo.environment["REACH_TRANSFERS_BENCH"] ?? "") ?? 256
        let size = mebibytes << 20
        try await withServer { server, downloader in
            // Content: a 1 MiB pattern repeated (it is not compressed anyway).
            let block = Data(pattern(size: 1 << 20, seed: 42))
            let path = server.root + "/bench.bin"
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            for _ in 0..<mebibytes { handle.write(block) }
            try handle.close()

            var rates: [Double] = []
            for round in 0..<3 {
                let destination = server.destination("bench-\(round).bin")
                let start = ContinuousClock.now
                let result = try await downloader.download(DownloadRequest(url: server.url("bench.bin"), destination: destination))
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                #expect(result.bytes == Int64(size))
                rates.append(Double(mebibytes) / seconds)
                try FileManager.default.removeItem(atPath: destination)
            }
            print("downloader: \(mebibytes) MiB, MiB/s per round: \(rates.map { String(format: "%.0f", $0) }.joined(separator: ", "))")
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") {
                let output = try run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{speed_download}", server.url("bench.bin")]).output
                print("curl: \(String(format: "%.0f", (Double(output) ?? 0) / 1_048_576)) MiB/s")
            }
        }
    }
}
