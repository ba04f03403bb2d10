import Glibc
import ReachCommands
import Reachability
import ReachabilityCore
import ReachabilityTransfers
import Synchronization

/// Shows downloads: a redrawn bar per file on a terminal, a line every few seconds otherwise,
/// JSON lines with `--json`. Called from many tasks; one lock orders the output.
final class ProgressDisplay: Sendable {
    private struct Row {
        var progress: DownloadProgress?
        var paused: TransferWaitReason?
        var startedAt: Int64
        var startedBytes: Int64 = 0
        var lastPrinted: Int64 = 0
    }

    private let json: Bool
    private let interactive: Bool
    private let rows = Mutex<[String: Row]>([:])
    private let order = Mutex<[String]>([])
    private let drawnLines = Mutex(0)

    init(json: Bool, interactive: Bool) {
        self.json = json
        self.interactive = interactive
    }

    private static func nowNanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    private func update(_ name: String, _ change: (inout Row) -> Void) -> Row {
        let now = Self.nowNanoseconds()
        let row = rows.withLock { rows -> Row in
            var row = rows[name] ?? Row(startedAt: now)
            change(&row)
            rows[name] = row
            return row
        }
        order.withLock { if !$0.contains(name) { $0.append(name) } }
        return row
    }

    func gateEvent(name: String, url: String, _ event: TransferGate.Event) {
        switch event {
        case .waiting(let reason), .paused(let reason):
            _ = update(name) { $0.paused = reason }
            let kind = if case .paused = event { "paused" } else { "waiting" }
            if json {
                printLine("{\"event\":\"\(kind)\",\"url\":\(PathJSON.string(url)),\"reason\":\"\(reason.code)\",\"message\":\(PathJSON.string(reason.description))}")
            } else if !interactive {
                printError("\(name): \(kind): \(reason)")
            }
        case .started, .resumed:
            _ = update(name) { row in
                row.paused = nil
                row.startedAt = Self.nowNanoseconds()
                row.startedBytes = row.progress?.bytesOnDisk ?? 0
            }
            if json { printLine("{\"event\":\"\(event == .started ? "started" : "resumed")\",\"url\":\(PathJSON.string(url))}") }
            else if !interactive && event == .resumed { printError("\(name): resumed") }
        }
        if interactive { redraw() }
    }

    func progress(name: String, url: String, _ progress: DownloadProgress) {
        let now = Self.nowNanoseconds()
        var due = false
        let row = update(name) { row in
            if row.progress == nil { row.startedBytes = progress.bytesOnDisk - progress.bytesReceivedThisRun }
            row.progress = progress
            // Terminal: redraw at most 10 times a second; plain lines and JSON: once a second.
            let interval: Int64 = interactive ? 100_000_000 : 1_000_000_000
            if now - row.lastPrinted >= interval || progress.bytesOnDisk == progress.totalBytes {
                row.lastPrinted = now
                due = true
            }
        }
        guard due else { return }
        if interactive {
            redraw()
        } else if json {
            let total = progress.totalBytes.map(String.init) ?? "null"
            printLine("{\"event\":\"progress\",\"url\":\(PathJSON.string(url)),\"bytes\":\(progress.bytesOnDisk),\"total\":\(total),\"rate\":\(Self.int64(rate(row))),\"refetched\":\(progress.bytesRefetched)}")
        } else {
            printError("\(name): \(line(row))")
        }
    }

    func done(name: String, url: String, _ result: DownloadResult) {
        _ = update(name) { $0.paused = nil }
        if json {
            printLine("{\"event\":\"done\",\"url\":\(PathJSON.string(url)),\"path\":\(PathJSON.string(result.path)),\"bytes\":\(result.bytes),\"sha256\":\"\(result.sha256)\",\"restarts\":\(result.restarts),\"downloaded\":\(result.bytesDownloadedTotal),\"refetched\":\(result.bytesRefetched)}")
        } else {
            if interactive { redraw() }
            printError("\(name): done, \(ByteCount.text(result.bytes)), sha256 \(result.sha256)")
            if interactive { drawnLines.withLock { $0 = 0 } }
        }
    }

    func failed(name: String, url: String, _ message: String) {
        if json {
            printLine("{\"event\":\"error\",\"url\":\(PathJSON.string(url)),\"message\":\(PathJSON.string(message))}")
        } else {
            printError("\(name): failed: \(message)")
            if interactive { drawnLines.withLock { $0 = 0 } }
        }
    }

    private func rate(_ row: Row) -> Double {
        guard let progress = row.progress else { return 0 }
        let seconds = Double(Self.nowNanoseconds() - row.startedAt) / 1e9
        return seconds > 0.05 ? Double(progress.bytesOnDisk - row.startedBytes) / seconds : 0
    }

    /// `value` rounded down into `0...Int64.max` (a rate: never negative, never a trap).
    private static func int64(_ value: Double) -> Int64 {
        guard value > 0 else { return 0 }
        return value < 9.2e18 ? Int64(value) : Int64.max
    }

    /// `45% 450 MiB of 1 GiB  120.3 MiB/s  ETA 5 s`, or the pause reason.
    private func line(_ row: Row) -> String {
        if let paused = row.paused { return "paused: \(paused)" }
        guard let progress = row.progress else { return "starting" }
        let rate = rate(row)
        var text = ""
        if let total = progress.totalBytes, let fraction = progress.fractionCompleted {
            text += "\(Int(fraction * 100))% \(ByteCount.text(progress.bytesOnDisk)) of \(ByteCount.text(total))"
            if rate > 0 {
                text += "  \(ByteCount.text(Self.int64(rate)))/s"
                // The size is the server's word: with `Content-Length: 9223372036854775807` and
                // a slow start the ETA passes Int64.max (it trapped here). Absurd ETAs are left out.
                let eta = Double(max(total - progress.bytesOnDisk, 0)) / rate
                if eta < OptionChecks.maximumSeconds { text += "  ETA \(Int64(eta)) s" }
            }
        } else {
            text += ByteCount.text(progress.bytesOnDisk)
            if rate > 0 { text += "  \(ByteCount.text(Self.int64(rate)))/s" }
        }
        if let retry = progress.retryingAfter { text += "  retrying in \(ByteCount.seconds(retry))" }
        return text
    }

    /// Redraws one line per file in place (ANSI cursor-up), on stderr.
    private func redraw() {
        let names = order.withLock { $0 }
        let snapshot = rows.withLock { $0 }
        var text = ""
        let previous = drawnLines.withLock { $0 }
        if previous > 0 { text += "\u{1B}[\(previous)A" }
        for name in names {
            guard let row = snapshot[name] else { continue }
            let bar = Self.bar(row)
            text += "\r\u{1B}[2K\(name)  \(bar) \(line(row))\n"
        }
        drawnLines.withLock { $0 = names.count }
        printErrorRaw(text)
    }

    private static func bar(_ row: Row) -> String {
        let width = 24
        guard let progress = row.progress, let total = progress.totalBytes, total > 0 else { return "[" + String(repeating: " ", count: width) + "]" }
        // Not `bytesOnDisk * width / total`: sizes are the server's word, and may overflow it.
        let filled = Int(max(0, min(progress.fractionCompleted ?? 0, 1)) * Double(width))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }
}
