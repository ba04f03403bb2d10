import ReachabilityTransfers

// The README's engine snippet, compiled with the tests so it cannot drift from the API (it is
// never run: it would download from example.com). Keep the two in step.
func readmeEngineSnippet(sha: String) async throws {
    let monitor = NetworkMonitor()
    let engine = TransferEngine(monitor: monitor)
    let events = engine.events()   // subscribe first: no event is missed
    let id = try engine.submit(.download(
        DownloadRequest(url: "https://updates.example.com/os.img", destination: "/var/lib/os/os.img", expectedSHA256: sha),
        policy: TransferPolicy(allowsExpensive: false, cellularSizeLimit: 50_000_000)))
    for await event in events where event.id == id {
        print(event.state, event.progress.completedBytes, event.progress.totalBytes ?? -1)   // "waiting: cellular not allowed"…
        if event.state.isFinal { break }
    }
    await engine.pause(id)      // keeps the partial file; resume(id) continues it
    await engine.cancel(id)     // removes it
}
