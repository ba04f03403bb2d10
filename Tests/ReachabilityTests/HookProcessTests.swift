import Foundation
import ReachabilityProcesses
import Synchronization
import Testing

@Suite("Hooks run as dispatchers run them")
struct HookProcessTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test func aHookGetsExactlyItsEnvironmentAndDescriptorsZeroToTwo() async throws {
        let output = Lines()
        let outcome = try await HookProcess.run(
            ["/bin/sh", "-c", "env | sort; ls /proc/self/fd | sort -n | tr '\\n' ' '; echo"],
            environment: ["PATH": "/usr/bin:/bin", "REACH_EVENT": "up"], timeout: .seconds(10), output: output.add)
        #expect(outcome.termination.exitStatus == 0)
        #expect(!outcome.timedOut)
        let lines = output.all
        #expect(lines.contains("REACH_EVENT=up"))
        #expect(lines.filter { $0.contains("=") && !$0.hasPrefix("PWD=") && !$0.hasPrefix("SHLVL=") && !$0.hasPrefix("_=") }.sorted()
            == ["PATH=/usr/bin:/bin", "REACH_EVENT=up"])
        // 0, 1, 2, and the descriptor ls opened on /proc/self/fd.
        let descriptors = lines.last?.split(separator: " ").compactMap { Int($0) } ?? []
        #expect(descriptors.count == 4 && Array(descriptors.prefix(3)) == [0, 1, 2], "\(lines)")
    }

    @Test func aHookPastItsTimeIsKilledWithItsChildren() async throws {
        let output = Lines()
        let outcome = try await HookProcess.run(
            ["/bin/sh", "-c", "echo started; sleep 30 & sleep 30; echo never"], environment: ["PATH": "/usr/bin:/bin"],
            timeout: .milliseconds(300), output: output.add)
        #expect(outcome.timedOut)
        #expect(outcome.termination.signal == SIGTERM)
        #expect(output.all == ["started"])
    }

    @Test func aLongLineIsCutAndTheRestSkipped() async throws {
        let output = Lines()
        _ = try await HookProcess.run(
            ["/bin/sh", "-c", "head -c 10000 /dev/zero | tr '\\\\0' x; echo; echo next"], environment: ["PATH": "/usr/bin:/bin"],
            timeout: .seconds(10), output: output.add)
        let lines = output.all
        #expect(lines.count == 2)
        #expect(lines.first?.count == HookProcess.maxLineBytes + " [cut]".count)
        #expect(lines.last == "next")
    }

    /// A hook that leaves a process holding its output open (`daemon &`) does not hold up the
    /// next hook until that process ends (without the bound, this waits 1,000 s).
    @Test(.timeLimit(.minutes(1))) func aProcessLeftBehindDoesNotHoldUpTheHook() async throws {
        let output = Lines()
        let outcome = try await HookProcess.run(
            ["/bin/sh", "-c", "sleep 1000 & echo $!"], environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(30), output: output.add)
        #expect(outcome.termination.exitStatus == 0)
        #expect(!outcome.timedOut)
        let leftover = try #require(output.all.first.flatMap { Int32($0) })
        #expect(kill(leftover, SIGKILL) == 0)
    }

    @Test func aMissingProgramIsASpawnError() async {
        await #expect(throws: CommandSpawnError.self) {
            try await HookProcess.run(["/nonexistent/hook"], environment: [:], timeout: .seconds(1)) { _ in }
        }
    }
}
