import Glibc
import ReachCommands
import Reachability
import ReachabilityCore
import ReachabilityTransfers
import Synchronization

/// Shows downloads or an upload: a redrawn bar per file on a terminal, a line every few
/// seconds otherwise, JSON lines with `--json`. Called from many tasks; one lock orders the
/// output.
final class ProgressDisplay: Sendable {
    private struct Row {
        var progress: JobProgress?
        var paused: String?
        var everRan = false
        /// Running since the last start or resume (a wait after it is a pause).
        var isRunning = false
        var lastPrintedBytes: Int64?
        var retryingAfter: Duration?
        var startedAt: Int64
        /// Bytes moved when the row last started or resumed: the rate is of bytes moved, so a
        /// resume that learns the server's offset does not count that offset as speed.
        var startedTransferred: Int64 = 0
        var lastPrinted: Int64 = 0
    }

    private let json: Bool
    private let interactive: Bool
    private let rows = Mutex<[String: Row]>([:])
    private let order = Mutex<[String]>([])
    private let drawnLines = Mutex(0)

    /// JSON lines go to stderr when stdout carries the data (`-o -`).
    private let jsonToStandardError: Bool
    /// Upload progress in JSON counts what this process `sent`; download progress, what was
    /// `refetched`.
    private let direction: Transfer.Direction

    init(json: Bool, interactive: Bool, jsonToStandardError: Bool = false, direction: Transfer.Direction = .download) {
        self.json = json
        self.interactive = interactive
        self.jsonToStandardError = jsonToStandardError
        self.direction = direction
    }

    private func emit(_ line: String) {
        if jsonToStandardError { printError(line) } else { printLine(line) }
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

    /// Shows one event of the job downloading `url` into `name`.
    func show(_ event: JobEvent, name: String, url: String) {
        switch event.state {
        case .waiting(let reason):
            let previous = rows.withLock { $0[name] }
            if previous?.paused == reason.description { break }
            let kind = previous?.isRunning == true ? "paused" : "waiting"
            _ = update(name) { row in
                row.paused = reason.description
                row.isRunning = false
            }
            if json {
                emit("{\"event\":\"\(kind)\",\"url\":\(PathJSON.string(url)),\"reason\":\"\(reason.code)\",\"message\":\(PathJSON.string(reason.description))}")
            } else if !interactive {
                printError("\(name): \(kind): \(reason)")
            }
        case .paused(let reason):
            if let delay = reason.retryAfter {
                _ = update(name) { $0.retryingAfter = delay }
                if json {
                    emit("{\"event\":\"retry\",\"url\":\(PathJSON.string(url)),\"in\":\(Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18),\"message\":\(PathJSON.string(reason.description))}")
                } else if !interactive {
                    printError("\(name): \(reason)")
                }
            }
        case .running:
            let row = rows.withLock { $0[name] }
            if row?.everRan != true || row?.paused != nil {
                let kind = row?.everRan == true ? "resumed" : "started"
                _ = update(name) { row in
                    row.paused = nil
                    row.everRan = true
                    row.isRunning = true
                    row.startedAt = Self.nowNanoseconds()
                    row.startedTransferred = event.progress.transferredBytes
                }
                if json {
                    let network = event.network.map { ",\"network\":\(PathJSON.string($0.description))" } ?? ""
                    emit("{\"event\":\"\(kind)\",\"url\":\(PathJSON.string(url))\(network)}")
                } else if !interactive && kind == "resumed" {
                    printError("\(name): resumed")
                }
            }
            progress(name: name, url: url, event.progress)
        default:
            break
        }
        if interactive { redraw() }
    }

    private func progress(name: String, url: String, _ progress: JobProgress) {
        let now = Self.nowNanoseconds()
        var due = false
        let row = update(name) { row in
            row.progress = progress
            row.retryingAfter = nil
            // Terminal: redraw at most 10 times a second; plain lines and JSON: once a second.
            let interval: Int64 = interactive ? 100_000_000 : 1_000_000_000
            let finished = progress.completedBytes == progress.totalBytes
            if now - row.lastPrinted >= interval || (finished && row.lastPrintedBytes != progress.completedBytes) {
                row.lastPrinted = now
                row.lastPrintedBytes = progress.completedBytes
                due = true
            }
        }
        guard due, !interactive else { return }
        // A plain line says nothing before the first byte or the size.
        if !json && progress.completedBytes == 0 && progress.totalBytes == nil { return }
        if json {
            let total = progress.totalBytes.map(String.init) ?? "null"
            let moved = direction == .upload ? "\"sent\":\(progress.transferredBytes)" : "\"refetched\":\(progress.refetchedBytes)"
            emit("{\"event\":\"progress\",\"url\":\(PathJSON.string(url)),\"bytes\":\(progress.completedBytes),\"total\":\(total),\"rate\":\(Self.clampedInt(rate(row))),\(moved)}")
        } else {
            printError("\(name): \(line(row))")
        }
    }

    /// A Double as an Int64, clamped: a rate or ETA from a server that declares an absurd size
    /// must not trap.
    static func clampedInt(_ value: Double) -> Int64 {
        guard value.isFinite else { return 0 }
        return value >= 9.2e18 ? Int64.max : value <= -9.2e18 ? Int64.min : Int64(value)
    }

    func done(name: String, url: String, _ result: DownloadResult) {
        _ = update(name) { $0.paused = nil }
        if json {
            emit("{\"event\":\"done\",\"url\":\(PathJSON.string(url)),\"path\":\(PathJSON.string(result.path)),\"bytes\":\(result.bytes),\"sha256\":\(result.sha256.map { "\"\($0)\"" } ?? "null"),\"restarts\":\(result.restarts),\"downloaded\":\(result.bytesDownloadedTotal),\"refetched\":\(result.bytesRefetched)}")
        } else {
            if interactive { redraw() }
            printError("\(name): done, \(ByteCount.text(result.bytes))\(result.sha256.map { ", sha256 \($0)" } ?? "")")
            if interactive { drawnLines.withLock { $0 = 0 } }
        }
    }

    func done(name: String, url: String, _ result: UploadResult) {
        _ = update(name) { $0.paused = nil }
        if json {
            let location = result.location.map(PathJSON.string) ?? "null"
            emit(
                "{\"event\":\"done\",\"url\":\(PathJSON.string(url)),\"bytes\":\(result.bytes),\"sent\":\(result.bytesSentTotal),\"resent\":\(result.bytesResent),\"resumedFrom\":\(result.resumedFrom),\"tus\":\(result.resumable),\"status\":\(result.status),\"location\":\(location)}")
            return
        }
        if interactive { redraw() }
        var text = "\(name): done, \(ByteCount.text(result.bytes)), HTTP \(result.status)"
        if result.resumable { text += ", tus" + (result.resumedFrom > 0 ? " (resumed at \(ByteCount.text(result.resumedFrom)))" : "") }
        if result.bytesResent > 0 { text += ", \(ByteCount.text(result.bytesResent)) sent again" }
        printError(text)
        if interactive { drawnLines.withLock { $0 = 0 } }
    }

    /// A download to standard output finished.
    func streamed(name: String, url: String, bytes: Int64) {
        if json {
            emit("{\"event\":\"done\",\"url\":\(PathJSON.string(url)),\"path\":\"-\",\"bytes\":\(bytes)}")
        } else if !interactive {
            printError("\(name): done, \(ByteCount.text(bytes)) to standard output")
        }
    }

    func failed(name: String, url: String, _ message: String) {
        if json {
            emit("{\"event\":\"error\",\"url\":\(PathJSON.string(url)),\"message\":\(PathJSON.string(message))}")
        } else {
            printError("\(name): failed: \(message)")
            if interactive { drawnLines.withLock { $0 = 0 } }
        }
    }

    private func rate(_ row: Row) -> Double {
        guard let progress = row.progress else { return 0 }
        let seconds = Double(Self.nowNanoseconds() - row.startedAt) / 1e9
        return seconds > 0.05 ? Double(progress.transferredBytes - row.startedTransferred) / seconds : 0
    }

    /// `45% 450 MiB of 1 GiB  120.3 MiB/s  ETA 5 s`, or the pause reason.
    private func line(_ row: Row) -> String {
        if let paused = row.paused { return "paused: \(paused)" }
        guard let progress = row.progress else { return "starting" }
        let rate = rate(row)
        var text = ""
        if let total = progress.totalBytes, total > 0 {
            let percent = Self.clampedInt(Double(progress.completedBytes) * 100 / Double(total))
            text += "\(percent)% \(ByteCount.text(progress.completedBytes)) of \(ByteCount.text(total))"
            if rate > 0 {
                text += "  \(ByteCount.text(Self.clampedInt(rate)))/s"
                // The size is the server's word: with `Content-Length: 9223372036854775807` and a
                // slow start the ETA passed Int64.max (it trapped here). Absurd ETAs are left out.
                let eta = Double(max(total - progress.completedBytes, 0)) / rate
                if eta < OptionChecks.maximumSeconds { text += "  ETA \(Int64(eta)) s" }
            }
        } else {
            text += ByteCount.text(progress.completedBytes)
            if rate > 0 { text += "  \(ByteCount.text(Self.clampedInt(rate)))/s" }
        }
        if let retry = row.retryingAfter { text += "  retrying in \(ByteCount.seconds(retry))" }
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
        let filled = Int(min(Int64(width), max(0, clampedInt(Double(progress.completedBytes) * Double(width) / Double(total)))))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }
}
