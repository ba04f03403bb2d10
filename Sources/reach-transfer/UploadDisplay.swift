import Glibc
import ReachCommands
import Reachability
import ReachabilityCore
import ReachabilityTransfers
import Synchronization

/// Shows one upload: a redrawn line on a terminal, a line a second otherwise, JSON lines with
/// `--json` (the same events as `reach get --json`, with upload fields). Called from the
/// uploading tasks; one lock orders the output.
final class UploadDisplay: Sendable {
    private struct State {
        var startedAt: Int64 = 0
        var startPosition: Int64?
        var lastPrinted: Int64 = 0
        var printedAny = false
        /// Sent by the calls before this one (the gate starts a new call after each pause).
        var sentBefore: Int64 = 0
        var sentThisCall: Int64 = 0
    }

    private let json: Bool
    private let interactive: Bool
    private let name: String
    private let url: String
    private let state = Mutex(State())

    init(json: Bool, interactive: Bool, name: String, url: String) {
        self.json = json
        self.interactive = interactive
        self.name = name
        self.url = url
    }

    private static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    func gateEvent(_ event: TransferGate.Event) {
        switch event {
        case .waiting(let reason), .paused(let reason):
            let kind = if case .paused = event { "paused" } else { "waiting" }
            if json {
                printLine("{\"event\":\"\(kind)\",\"url\":\(PathJSON.string(url)),\"reason\":\"\(reason.code)\",\"message\":\(PathJSON.string(reason.description))}")
            } else {
                printError("\(name): \(kind): \(reason)")
            }
        case .started, .resumed:
            state.withLock { state in
                state.startedAt = Self.now()
                state.startPosition = nil
                state.sentBefore += state.sentThisCall
                state.sentThisCall = 0
            }
            if json {
                printLine("{\"event\":\"\(event == .started ? "started" : "resumed")\",\"url\":\(PathJSON.string(url))}")
            } else if event == .resumed {
                printError("\(name): resumed")
            }
        }
    }

    /// The first report that sent something is shown at once (a test or a script can act on
    /// it), then one a second (ten on a terminal), and the last one.
    func progress(_ progress: UploadProgress) {
        let now = Self.now()
        let (due, rate, sent) = state.withLock { state -> (Bool, Double, Int64) in
            if state.startPosition == nil { state.startPosition = progress.position - progress.bytesSentThisRun }
            state.sentThisCall = progress.bytesSentThisRun
            let interval: Int64 = interactive ? 100_000_000 : 1_000_000_000
            let first = !state.printedAny && progress.bytesSentThisRun > 0
            let due = first || now - state.lastPrinted >= interval || progress.position == progress.totalBytes
            if due {
                state.lastPrinted = now
                state.printedAny = true
            }
            let seconds = Double(now - state.startedAt) / 1e9
            let moved = Double(progress.position - (state.startPosition ?? 0))
            return (due, seconds > 0.05 ? moved / seconds : 0, state.sentBefore + progress.bytesSentThisRun)
        }
        guard due else { return }
        if json {
            printLine(
                "{\"event\":\"progress\",\"url\":\(PathJSON.string(url)),\"bytes\":\(progress.position),\"total\":\(progress.totalBytes),\"sent\":\(sent),\"rate\":\(Int64(rate))}")
        } else if interactive {
            printErrorRaw("\r\u{1B}[2K\(name)  \(Self.line(progress, rate: rate))")
        } else {
            printError("\(name): \(Self.line(progress, rate: rate))")
        }
    }

    func done(_ result: UploadResult) {
        if json {
            let location = result.location.map(PathJSON.string) ?? "null"
            printLine(
                "{\"event\":\"done\",\"url\":\(PathJSON.string(url)),\"bytes\":\(result.bytes),\"sent\":\(result.bytesSentTotal),\"resent\":\(result.bytesResent),\"resumedFrom\":\(result.resumedFrom),\"tus\":\(result.resumable),\"status\":\(result.status),\"location\":\(location)}")
            return
        }
        if interactive { printErrorRaw("\r\u{1B}[2K") }
        var text = "\(name): done, \(ByteCount.text(result.bytes)), HTTP \(result.status)"
        if result.resumable { text += ", tus" + (result.resumedFrom > 0 ? " (resumed at \(ByteCount.text(result.resumedFrom)))" : "") }
        if result.bytesResent > 0 { text += ", \(ByteCount.text(result.bytesResent)) sent again" }
        printError(text)
    }

    func failed(_ message: String) {
        if json {
            printLine("{\"event\":\"error\",\"url\":\(PathJSON.string(url)),\"message\":\(PathJSON.string(message))}")
        } else {
            if interactive { printErrorRaw("\r\u{1B}[2K") }
            printError("\(name): failed: \(message)")
        }
    }

    /// `45% 450 MiB of 1 GiB  120.3 MiB/s  ETA 5 s`.
    private static func line(_ progress: UploadProgress, rate: Double) -> String {
        let total = progress.totalBytes
        var text = "\(total > 0 ? progress.position * 100 / total : 100)% \(ByteCount.text(progress.position)) of \(ByteCount.text(total))"
        if rate > 0 { text += "  \(ByteCount.text(Int64(rate)))/s  ETA \(Int64(Double(total - progress.position) / rate)) s" }
        if let retry = progress.retryingAfter { text += "  retrying in \(ByteCount.seconds(retry))" }
        return text
    }
}
