import ReachabilityTransfers
import Foundation
import Glibc
import Reachability
import ReachabilityCore
@testable import ReachabilityDaemon
import ReachabilityTestKit
import Testing

/// A state directory on a real tmpfs that fills up: every change the queue acknowledges is in
/// the database after a restart, every change it refuses is refused as `storageFull` (507) and
/// did not happen, and a transition nobody waited for is written once space is back.
@Suite("A full state directory", .serialized)
struct FullStateDirectoryTests {
    private static var canMount: Bool { ProcessInfo.processInfo.environment["CI"] == "true" || getuid() == 0 }

    @Test(.enabled(if: canMount)) func acknowledgedChangesSurviveAndRefusedOnesNeverHappened() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = try mountedState(in: directory)
        defer { _ = try? shell("umount -l '\(state)'") }
        let monitor = NetworkMonitor(source: FakeNetworkSource(), clock: ContinuousClock())
        let openQueue = { () throws -> JobQueue in
            let queue = try JobQueue(configuration: .init(stateDirectory: state), monitor: monitor)
            try queue.start()
            return queue
        }
        var queue = try openQueue()
        let later = Date().addingTimeInterval(3600)
        var held: [Int64] = []
        for _ in 0..<6 {
            held.append(try await queue.add(QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["true"]), notBefore: later), workingDirectory: "/").id)
        }
        // Fill every block the file system has left.
        let filler = state + "/filler"
        #expect(fill(filler))

        // Cancels and big adds until the store refuses; the WAL's spare room takes a few first.
        var cancelled: [Int64] = []
        var refusedCancels: [Int64] = []
        var added: [Int64] = []
        var refusals: [String] = []
        var refusedAddMessages: [String] = []
        let big = String(repeating: "x", count: 48 * 1024)
        for id in held.prefix(3) {
            do { cancelled.append(try await queue.cancel(id).id) } catch {
                refusedCancels.append(id)
                refusals.append(error.token)
            }
        }
        for _ in 0..<40 where refusals.count < 4 {
            do {
                added.append(try await queue.add(QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["echo", big]), notBefore: later), workingDirectory: "/").id)
            } catch {
                refusals.append(error.token)
                refusedAddMessages.append(error.message)
            }
        }
        for id in held.suffix(3) {
            do { cancelled.append(try await queue.cancel(id).id) } catch {
                refusedCancels.append(id)
                refusals.append(error.token)
            }
        }
        #expect(!refusals.isEmpty, "the full file system refused nothing")
        #expect(refusals.allSatisfy { $0 == "storageFull" }, "\(refusals)")
        #expect(QueueError.storageFull("").httpStatus == 507)
        // An add hears that its job was not recorded, whatever else its batch held.
        #expect(refusedAddMessages.allSatisfy { $0 == "cannot record the job: the state directory's file system is full" }, "\(refusedAddMessages)")
        for id in refusedCancels { #expect(try queue.job(id).state == .paused, "a refused cancel changed job \(id)") }

        // Space comes back; what was acknowledged is all there after a restart, and nothing else.
        #expect(unlink(filler) == 0)
        await queue.shutdown()
        queue = try openQueue()
        for id in cancelled { #expect(try queue.job(id).state == .cancelled) }
        for id in refusedCancels { #expect(try queue.job(id).reason?.code == "notBefore") }
        #expect(try queue.list().count == held.count + added.count)
        #expect(try queue.integrityCheck() == "ok")
        await queue.shutdown()
    }

    @Test(.enabled(if: canMount)) func aTransitionMadeWhileFullIsWrittenOnceSpaceIsBack() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = try mountedState(in: directory)
        defer { _ = try? shell("umount -l '\(state)'") }
        // Online (a wired uplink), so the command runs at once.
        let online = NetworkSnapshot(
            interfaces: [InterfaceFacts(name: "eth0", index: 2, flags: [.up, .lowerUp, .running], hardwareType: 1, kind: "veth")],
            addresses: [InterfaceAddress(interfaceIndex: 2, family: .ipv4, address: "192.0.2.2", prefixLength: 24)],
            defaultRoutes: [DefaultRoute(family: .ipv4, interfaceIndex: 2)])
        let queue = try JobQueue(
            configuration: .init(stateDirectory: state), monitor: NetworkMonitor(source: FakeNetworkSource(initial: online), clock: ContinuousClock()))
        try queue.start()
        let gate = directory.path + "/go"
        let job = try await queue.add(
            QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["sh", "-c", "while [ ! -e '\(gate)' ]; do sleep 0.05; done"])),
            workingDirectory: "/")
        for _ in 0..<600 where try queue.job(job.id).state != .running { try await Task.sleep(for: .milliseconds(10)) }
        #expect(try queue.job(job.id).state == .running)
        // Full: the WAL's spare room is used up by refused adds first.
        let filler = state + "/filler"
        #expect(fill(filler))
        let big = String(repeating: "y", count: 48 * 1024)
        var refused = false
        for _ in 0..<40 where !refused {
            do { _ = try await queue.add(QueueJobSpec(kind: .command, command: CommandSpec(arguments: ["echo", big]), notBefore: Date().addingTimeInterval(3600)), workingDirectory: "/") } catch { refused = true }
        }
        #expect(refused)
        #expect(FileManager.default.createFile(atPath: gate, contents: nil))
        for _ in 0..<600 where try queue.job(job.id).state != .succeeded { try await Task.sleep(for: .milliseconds(10)) }
        #expect(try queue.job(job.id).state == .succeeded)
        try await Task.sleep(for: .milliseconds(300))
        #expect(queue.writer.backlog > 0, "the success was written although the file system is full")
        #expect(unlink(filler) == 0)
        #expect(await queue.writer.drain(timeout: .seconds(40)))
        // Read before any shutdown: as after kill -9, only what is in the database counts.
        let reader = try QueueStore(directory: state)
        #expect(try reader.job(job.id)?.state == .succeeded)
        await queue.shutdown()
    }

    /// `DIRECTORY/state` on a 3 MiB tmpfs of its own (the caller unmounts it).
    private func mountedState(in directory: TemporaryDirectory) throws -> String {
        let state = directory.path + "/state"
        #expect(mkdir(state, 0o700) == 0)
        let status = try shell("mount -t tmpfs -o size=3m,mode=0700 tmpfs '\(state)'")
        try #require(status == 0, "cannot mount a tmpfs on \(state) (needs root)")
        return state
    }

    /// Writes `path` until the file system is full; false if it cannot be created.
    private func fill(_ path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        let block = [UInt8](repeating: 0x5A, count: 4096)
        while write(fd, block, block.count) == block.count {}
        close(fd)
        return true
    }

    @discardableResult
    private func shell(_ command: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
