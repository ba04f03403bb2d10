// Validates connectivity once, as `reach status --probe URL` does: every uplink is probed out
// of its own interface, and the path says whether the Internet really answers.
// `example-validated-path URL` (an http:// URL answering 204, such as your own server's).
import Reachability
import ReachabilityValidation

let url = CommandLine.arguments.dropFirst().first ?? "http://127.0.0.1/generate_204"

// snippet: validation
// Off unless given a probe URL and a prober: nothing is sent otherwise.
let validation = ConnectivityValidation(endpoints: [try ProbeEndpoint(parsing: url)], timeout: .seconds(3))
let validated = NetworkMonitor(configuration: MonitorConfiguration(validation: validation), prober: HTTPConnectivityProber())

let path = try await validated.validatedPath()   // probes every uplink once, in parallel
print(path.connectivity, path.portalURL ?? "-")   // full, portal + its login page, limited, partial, …
for interface in path.interfaces {
    guard let found = interface.validation else { continue }
    print(interface.name, found.connectivity, found.probes.map(\.detail))
}
// `paths` re-probes with backoff while not full; the transfer policy waits behind a portal
// (`TransferWaitReason.captivePortal(url:)`) or without the Internet (`.noInternet`).
// end snippet
