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
    /// next hook until that process ends (without the bound, this waits 1,000 s), and the
    /// leftover is ended with the run (the old code left it running, and a thread and the pipe
    /// waiting on it: the daemon's own counts are in `ReachDaemonLocalUserTests`).
    @Test(.timeLimit(.minutes(2))) func whatAHookLeavesBehindIsEndedWithTheRun() async throws {
        let runs = try await withThrowingTaskGroup(of: (HookProcess.Outcome, [String]).self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let output = Lines()
                    let outcome = try await HookProcess.run(
                        ["/bin/sh", "-c", "sleep 1000 & echo $!"], environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(30), output: output.add)
                    return (outcome, output.all)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var leftovers: [Int32] = []
        for (outcome, lines) in runs {
            #expect(outcome.termination.exitStatus == 0)
            #expect(!outcome.timedOut)
            #expect(outcome.endedLeftovers)
            leftovers.append(try #require(lines.first.flatMap { Int32($0) }))
        }
        for pid in leftovers {
            // Gone, or a zombie only this process could reap (it is the hook's grandchild).
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first
            #expect(state == nil || state == "Z", "leftover \(pid) is still \(state ?? "?")")
        }
    }

    /// `yes` for as long as it may: at most ``HookProcess/maxLines`` lines handed over, the
    /// rest counted.
    @Test func aChattyHookIsCappedAndTheRestCounted() async throws {
        let output = Lines()
        let outcome = try await HookProcess.run(
            ["/bin/sh", "-c", "yes | head -n 100000"], environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(30), output: output.add)
        #expect(outcome.termination.exitStatus == 0)
        #expect(output.all.count == HookProcess.maxLines)
        #expect(outcome.droppedLines == 100_000 - HookProcess.maxLines)
    }

    /// Started through an open directory, the hook that runs is the one in that directory,
    /// even when the directory's name points elsewhere by then (a script: its interpreter reads
    /// it through fd 3, and its `$0` still ends in its own name).
    @Test func aHookStartedThroughItsDirectoryRunsFromThatDirectory() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("hookfd-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        let hooks = base + "/hooks"
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let script = "#!/bin/sh\necho checked \"$1\" \"$(basename \"$0\")\"\n"
        FileManager.default.createFile(atPath: hooks + "/10-hook", contents: Data(script.utf8), attributes: [.posixPermissions: 0o755])
        let opened = open(hooks, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(opened >= 0)
        let descriptor = fcntl(opened, F_DUPFD_CLOEXEC, 10)
        close(opened)
        defer { close(descriptor) }
        try #require(rename(hooks, base + "/old") == 0)
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: false)
        FileManager.default.createFile(atPath: hooks + "/10-hook", contents: Data("#!/bin/sh\necho swapped\n".utf8), attributes: [.posixPermissions: 0o755])
        let output = Lines()
        let outcome = try await HookProcess.run(
            ["10-hook", "up"], directory: descriptor, environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(10), output: output.add)
        #expect(outcome.termination.exitStatus == 0)
        #expect(output.all == ["checked up 10-hook"])
    }

    @Test func aMissingProgramIsASpawnError() async {
        await #expect(throws: CommandSpawnError.self) {
            try await HookProcess.run(["/nonexistent/hook"], environment: [:], timeout: .seconds(1)) { _ in }
        }
    }
}
