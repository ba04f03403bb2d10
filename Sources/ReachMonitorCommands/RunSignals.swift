import Dispatch
import Glibc

/// The signals `reach run` acts on, caught with Dispatch sources (so a handler never runs
/// Swift code in signal context).
///
/// - SIGINT, SIGTERM, SIGHUP, SIGQUIT end the run: forwarded to the command, which has
///   `--kill-after` seconds before SIGKILL.
/// - SIGUSR1, SIGUSR2 are forwarded.
/// - SIGCONT (the shell's `fg`, `bg`) lets the command have the terminal back.
///
/// A signal that was ignored when reach started (`nohup`) stays ignored, by reach and by the
/// command.
final class RunSignals {
    static let ending: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    static let forwarded: [Int32] = [SIGUSR1, SIGUSR2]

    /// The signals above that were ignored when reach started.
    let ignoredAtStart: Set<Int32>
    private var sources: [any DispatchSourceSignal] = []

    init() {
        ignoredAtStart = Set((Self.ending + Self.forwarded).filter(Self.isIgnored))
    }

    /// Starts delivering signals to `handler`, on a Dispatch queue.
    func start(_ handler: @escaping @Sendable (Int32) -> Void) {
        for number in Self.ending + Self.forwarded + [SIGCONT] where !ignoredAtStart.contains(number) {
            // Ignored until the source is in place, so an early signal cannot kill reach; for
            // SIGCONT that would change nothing, and it keeps its default (continue).
            if number != SIGCONT { Glibc.signal(number, SIG_IGN) }
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }

    func stop() {
        for source in sources { source.cancel() }
        sources = []
    }

    private static func isIgnored(_ number: Int32) -> Bool {
        var action = sigaction()
        guard sigaction(number, nil, &action) == 0 else { return false }
        // SIG_IGN is the handler whose address is 1.
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 1
    }

    /// `SIGTERM`, `SIGINT`, … for the signals reach names in messages.
    static func name(_ number: Int32) -> String {
        let names: [Int32: String] = [
            SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT", SIGKILL: "SIGKILL",
            SIGUSR1: "SIGUSR1", SIGUSR2: "SIGUSR2",
        ]
        return names[number] ?? "signal \(number)"
    }
}
