import Foundation
import Reachability
import ReachabilityCore
import ReachabilityTestKit
@testable import ReachabilityTransfers
import Synchronization
import Testing

private let running: LinkFlags = [.up, .lowerUp, .running]

/// One uplink, `name`, with a default route: its role comes from the overrides below.
private func snapshot(_ name: String) -> NetworkSnapshot {
    NetworkSnapshot(
        interfaces: [InterfaceFacts(name: name, index: 2, flags: running, hardwareType: 1, kind: "veth")],
        addresses: [InterfaceAddress(interfaceIndex: 2, family: .ipv4, address: "192.0.2.2", prefixLength: 24)],
        defaultRoutes: [DefaultRoute(family: .ipv4, interfaceIndex: 2)])
}

private func engine(_ source: FakeNetworkSource, perHost: Int = 2, downloader: Downloader = Downloader(proxies: ProxySettings())) throws
    -> TransferEngine
{
    let monitor = NetworkMonitor(
        source: source,
        configuration: MonitorConfiguration(overrides: [try OverrideRule(parsing: "wifi0=wifi"), try OverrideRule(parsing: "cell0=cellular")]),
        clock: ContinuousClock())
    return TransferEngine(
        monitor: monitor, downloader: downloader, configuration: .init(perHost: perHost, maxRunning: 8), clock: ContinuousClock())
}

/// A job body that runs until told to finish or cancelled, counting its runs.
private final class Body: Sendable {
    let runs = Mutex(0)
    let finish = Mutex(false)

    func run(_ context: JobContext) async throws {
        runs.withLock { $0 += 1 }
        while !finish.withLock({ $0 }) {
            try Task.checkCancellation()
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    var runCount: Int { runs.withLock { $0 } }
}

/// An engine on the kernel's state (a download is judged by the route to its server: for one
/// on 127.0.0.1 that is loopback, always allowed).
private func kernelEngine(_ downloader: Downloader) -> TransferEngine {
    TransferEngine(monitor: NetworkMonitor(), downloader: downloader)
}

/// Polls the job's state until `predicate` holds (bounded: about 30 s, for a broken test).
private func waitUntil(_ engine: TransferEngine, _ id: JobID, _ predicate: (JobState) -> Bool) async throws -> JobState {
    for _ in 0..<30_000 {
        if let state = engine.status(of: id)?.state, predicate(state) { return state }
        try await Task.sleep(for: .milliseconds(1))
    }
    throw TestFailure("job \(id) stayed \(engine.status(of: id)?.state.description ?? "unknown")")
}

private let allowAtOnce = TransferPolicy(resumeAfter: .zero)
private let wifiOnly = TransferPolicy(allowsCellular: false, resumeAfter: .zero)

@Suite("TransferEngine")
struct TransferEngineTests {
    @Test func aJobGoesFromQueuedToRunningToSucceeded() async throws {
        let engine = try engine(FakeNetworkSource(initial: snapshot("wifi0")))
        let events = engine.events()
        let body = Body()
        let id = try engine.submit(.work(host: nil, policy: allowAtOnce, body.run))
        _ = try await waitUntil(engine, id) { $0 == .running }
        body.finish.withLock { $0 = true }
        let final = await engine.result(of: id)
        #expect(final?.state == .succeeded)
        var states: [String] = []
        for await event in events where event.id == id {
            if states.last != event.state.statusToken { states.append(event.state.statusToken) }
            if event.state.isFinal { break }
        }
        #expect(states == ["pending", "running", "succeeded"])
        #expect(engine.jobs().map(\.id) == [id])
    }

    @Test func aWaitingJobNamesThePredicateThatFails() async throws {
        let source = FakeNetworkSource(initial: snapshot("cell0"))
        let engine = try engine(source)
        let body = Body()
        let id = try engine.submit(.work(host: nil, policy: wifiOnly, body.run))
        let state = try await waitUntil(engine, id) { $0 != .queued }
        #expect(state == .waiting(.cellularNotAllowed))
        #expect(body.runCount == 0)
        source.send(snapshot("wifi0"))
        _ = try await waitUntil(engine, id) { $0 == .running }
        body.finish.withLock { $0 = true }
        #expect(await engine.result(of: id)?.state == .succeeded)
    }

    @Test func pauseResumeAndCancelByID() async throws {
        let engine = try engine(FakeNetworkSource(initial: snapshot("wifi0")))
        let body = Body()
        let id = try engine.submit(.work(host: nil, policy: allowAtOnce, body.run))
        _ = try await waitUntil(engine, id) { $0 == .running }

        #expect(await engine.pause(id))
        #expect(engine.status(of: id)?.state == .paused(.byUser))
        #expect(!(await engine.resume(JobID(999))))
        #expect(await engine.resume(id))
        _ = try await waitUntil(engine, id) { $0 == .running }
        #expect(body.runCount == 2)

        #expect(await engine.cancel(id))
        #expect(await engine.result(of: id)?.state == .cancelled)
        // Finished jobs cannot be paused, resumed or cancelled again.
        #expect(!(await engine.pause(id)))
        #expect(!(await engine.resume(id)))
        #expect(!(await engine.cancel(id)))
        #expect(await engine.result(of: JobID(999)) == nil)
    }

    @Test func aWaitingJobHoldsNoHostSlot() async throws {
        // One slot per host: a job waiting for Wi-Fi must not keep an allowed one out.
        let engine = try engine(FakeNetworkSource(initial: snapshot("cell0")), perHost: 1)
        let big = Body()
        let small = Body()
        let waiting = try engine.submit(.work(host: nil, policy: wifiOnly, big.run))
        _ = try await waitUntil(engine, waiting) { $0 == .waiting(.cellularNotAllowed) }
        let allowed = try engine.submit(.work(host: nil, policy: allowAtOnce, small.run))
        _ = try await waitUntil(engine, allowed) { $0 == .running }
        small.finish.withLock { $0 = true }
        #expect(await engine.result(of: allowed)?.state == .succeeded)
        #expect(engine.status(of: waiting)?.state == .waiting(.cellularNotAllowed))
        #expect(await engine.cancel(waiting))
    }

    @Test func aFreedSlotGoesToTheHigherPriorityFirst() async throws {
        let engine = try engine(FakeNetworkSource(initial: snapshot("wifi0")), perHost: 1)
        let first = Body()
        let normal = Body()
        let urgent = Body()
        let holder = try engine.submit(.work(host: nil, policy: allowAtOnce, first.run))
        _ = try await waitUntil(engine, holder) { $0 == .running }
        let later = try engine.submit(.work(host: nil, policy: allowAtOnce, priority: .normal, normal.run))
        let sooner = try engine.submit(.work(host: nil, policy: allowAtOnce, priority: .userInitiated, urgent.run))
        _ = try await waitUntil(engine, later) { $0 == .queued }
        _ = try await waitUntil(engine, sooner) { $0 == .queued }
        // `queued` is also the state before the first judgement: wait until both are in line.
        for _ in 0..<30_000 where engine.slots.waiterCount < 2 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(engine.slots.waiterCount == 2)
        // Both are allowed and queued behind the slot; neither has run.
        #expect(normal.runCount == 0 && urgent.runCount == 0)
        first.finish.withLock { $0 = true }
        _ = try await waitUntil(engine, sooner) { $0 == .running }
        #expect(engine.status(of: later)?.state == .queued)
        urgent.finish.withLock { $0 = true }
        _ = try await waitUntil(engine, later) { $0 == .running }
        normal.finish.withLock { $0 = true }
        #expect(await engine.result(of: later)?.state == .succeeded)
    }

    @Test func anIdInUseIsRefused() async throws {
        let engine = try engine(FakeNetworkSource(initial: snapshot("wifi0")))
        let body = Body()
        try engine.submit(.work(host: nil, policy: allowAtOnce, body.run), id: JobID(7))
        let error = #expect(throws: TransferError.self) {
            try engine.submit(.work(host: nil, policy: allowAtOnce, body.run), id: JobID(7))
        }
        #expect(error?.kind == .invalidRequest)
        #expect(engine.jobs().count == 1)
        #expect(await engine.cancel(JobID(7)))
    }

    @Test func aFailingBodyFailsTheJobWithItsError() async throws {
        let engine = try engine(FakeNetworkSource(initial: snapshot("wifi0")))
        let id = try engine.submit(.work(host: nil, policy: allowAtOnce) { _ in
            throw TransferError(.httpStatus(418), url: "http://example.invalid/")
        })
        let final = await engine.result(of: id)
        guard case .failed(let error) = final?.state else {
            Issue.record("expected a failure, got \(String(describing: final?.state))")
            return
        }
        #expect(error.kind == .httpStatus(418))
    }

    @Test func cancellingADownloadRemovesItsPartialFile() async throws {
        try await withServer { server, downloader in
            try server.addFile("slow.bin", size: 2_000_000, seed: 41)
            let destination = server.destination("slow.bin")
            let engine = kernelEngine(downloader)
            let id = try engine.submit(
                .download(DownloadRequest(url: server.url("slow.bin", query: "slow=500000"), destination: destination), policy: allowAtOnce))
            for _ in 0..<10_000 where (engine.status(of: id)?.progress.completedBytes ?? 0) == 0 { try await Task.sleep(for: .milliseconds(1)) }
            #expect(exists(destination + ".part"))
            #expect(await engine.cancel(id))
            #expect(engine.status(of: id)?.state == .cancelled)
            #expect(!exists(destination + ".part"))
            #expect(!exists(destination + ".part.json"))
            #expect(!exists(destination))
            // A finished job holds nothing: the same destination takes a new download at once.
            let again = try engine.submit(.download(DownloadRequest(url: server.url("slow.bin"), destination: destination), policy: allowAtOnce))
            #expect(await engine.result(of: again)?.state == .succeeded)
            let third = try engine.submit(.download(DownloadRequest(url: server.url("slow.bin"), destination: destination), policy: allowAtOnce))
            #expect(await engine.result(of: third)?.state == .succeeded)
        }
    }

    @Test func aPausedDownloadResumesWithoutFetchingAByteTwice() async throws {
        try await withServer { server, downloader in
            let bytes = try server.addFile("paused.bin", size: 1_500_000, seed: 42)
            let destination = server.destination("paused.bin")
            let engine = kernelEngine(downloader)
            let id = try engine.submit(
                .download(DownloadRequest(url: server.url("paused.bin", query: "slow=1000000"), destination: destination), policy: allowAtOnce))
            for _ in 0..<10_000 where (engine.status(of: id)?.progress.completedBytes ?? 0) == 0 { try await Task.sleep(for: .milliseconds(1)) }
            #expect(await engine.pause(id))
            let kept = engine.status(of: id)?.progress.completedBytes ?? 0
            #expect(kept > 0)
            #expect(await engine.resume(id))
            _ = try await waitUntil(engine, id) { $0.isFinal }
            let final = await engine.result(of: id)
            #expect(final?.state == .succeeded)
            #expect(fileBytes(destination) == bytes)
            #expect(final?.download?.bytesRefetched == 0)
            // The second request asked for the rest only.
            let gets = try server.requests().filter { $0.method == "GET" }
            #expect(gets.count == 2)
            let resumedAt = try #require(gets.last?.start)
            #expect(resumedAt >= kept)
        }
    }

    /// Descriptors this process has open on `directory` (readlink of /proc/self/fd), so tests
    /// running at the same time do not count.
    private func descriptors(on directory: String) -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == directory }.count
    }

    @Test func waitingDownloadsHoldNoDescriptorOfTheirDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let engine = try engine(FakeNetworkSource(initial: snapshot("cell0")))
        var ids: [JobID] = []
        for index in 0..<300 {
            let request = DownloadRequest(url: "http://127.0.0.1:9/\(index).bin", destination: directory.path + "/\(index).bin")
            ids.append(try engine.submit(.download(request, policy: wifiOnly)))
        }
        for id in ids { _ = try await waitUntil(engine, id) { $0 == .waiting(.cellularNotAllowed) } }
        // Before, each held one: 300 here, and under systemd's 1,024 the 994th job failed.
        #expect(descriptors(on: directory.path) == 0)
        for id in ids { #expect(await engine.cancel(id)) }
    }

    @Test func aDirectoryReplacedWhileItsDownloadWaitsIsRefusedBeforeAnyRequest() async throws {
        try await withServer { server, downloader in
            try server.addFile("moved.bin", size: 10_000, seed: 43)
            let directory = server.destination("box")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            let source = FakeNetworkSource(initial: snapshot("cell0"))
            let engine = try engine(source, downloader: downloader)
            let request = DownloadRequest(url: server.url("moved.bin"), destination: directory + "/moved.bin")
            let id = try engine.submit(.download(request, policy: wifiOnly))
            _ = try await waitUntil(engine, id) { $0 == .waiting(.cellularNotAllowed) }
            // Whoever can write the parent puts another directory in its place.
            try FileManager.default.moveItem(atPath: directory, toPath: directory + ".old")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            source.send(snapshot("wifi0"))
            guard case .failed(let error) = await engine.result(of: id)?.state else {
                throw TestFailure("the job did not fail: \(String(describing: engine.status(of: id)?.state))")
            }
            #expect(error.kind == .notWritable, "\(error)")
            #expect(error.description.contains("refusing to use another directory than the one the download was added for"), "\(error)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + ".old").isEmpty)
            #expect(try server.requests().isEmpty, "no request before the directory was checked")
        }
    }
}
