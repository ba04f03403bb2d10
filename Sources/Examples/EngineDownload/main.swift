// Downloads URL into PATH with the transfer engine, never over a metered network and at most
// 50 MB over cellular, printing each event. `example-engine-download URL PATH [SHA256]`;
// exits 0 once downloaded, 1 if it failed.
import ReachabilityTransfers

#if canImport(Glibc)
import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    print("usage: example-engine-download URL PATH [SHA256]")
    exit(64)
}
let (url, path, sha) = (arguments[0], arguments[1], arguments.count > 2 ? arguments[2] : nil)
let monitor = NetworkMonitor()

// snippet: engine
let succeeded = try await withTransferEngine(monitor: monitor) { engine in   // ended with the scope
    let events = engine.events()   // subscribe first: no event is missed
    let id = try engine.submit(.download(
        DownloadRequest(url: url, destination: path, expectedSHA256: sha),
        policy: TransferPolicy(allowsExpensive: false, cellularSizeLimit: 50_000_000)))
    for await event in events where event.id == id {
        print(event.state, event.progress.completedBytes, event.progress.totalBytes ?? -1)   // "waiting: cellular not allowed"…
        if event.state.isFinal { break }
    }
    // Also: engine.pause(id) keeps the partial file, resume(id) continues it, cancel(id) removes it.
    return engine.status(of: id)?.state == .succeeded
}
// end snippet
exit(succeeded ? 0 : 1)
