// Runs a custom async job only while the network to its server allows it: paused (cancelled)
// the moment it stops allowing it, started again once it has allowed it for `resumeAfter`.
// `example-gated-job [HOST]` gates on the route to HOST (default 127.0.0.1: always allowed).
import Reachability

let host = CommandLine.arguments.dropFirst().first ?? "127.0.0.1"
let monitor = NetworkMonitor()
let size: Int64 = 30_000_000

/// A stand-in for real work that resumes where it stopped: three steps, checking for
/// cancellation between them.
actor PhotoSync {
    private(set) var done = 0
    func run() async throws -> Int {
        while done < 3 {
            try Task.checkCancellation()
            try await Task.sleep(for: .milliseconds(10))
            done += 1
        }
        return done
    }
}
let sync = PhotoSync()

// snippet: gate
let gate = TransferGate(monitor: monitor, policy: TransferPolicy(cellularSizeLimit: 50_000_000, resumeAfter: .seconds(5)),
                        destination: host)
let allowedOn = try await gate.waitUntilAllowed(Transfer(expectedBytes: size))   // suspends until allowed
print("allowed on", allowedOn)
let steps = try await gate.run(Transfer(expectedBytes: size), onEvent: { print($0) }) {
    try await sync.run()   // cancelled on a disallowing network, called again when allowed
}
// end snippet
print("done:", steps, "steps")
