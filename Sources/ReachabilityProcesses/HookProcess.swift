import CGNULibc
import Glibc

/// Runs a program to completion the way dispatcher hooks are run: in a process group of its
/// own, with exactly the environment given, standard input from /dev/null, standard output and
/// error handed line by line to a closure, no other descriptor, and a time limit after which
/// the whole group is terminated (SIGTERM, then SIGKILL 2 s later). It returns once the hook
/// has exited and its output is read, or 1 s after it exited if something it started keeps
/// the output open.
public enum HookProcess {
    /// How a hook ended.
    public struct Outcome: Sendable, Hashable {
        /// Its exit status or the signal that ended it.
        public let termination: CommandTermination
        /// It ran past its time limit and was terminated.
        public let timedOut: Bool
    }

    /// The longest output line handed over; longer ones are cut (a hook that prints megabytes
    /// on one line must not hold them in the daemon).
    public static let maxLineBytes = 4096

    /// Runs `arguments` (the first an absolute path) with `environment`, handing each output
    /// line to `output`, for at most `timeout`.
    public static func run(
        _ arguments: [String], environment: [String: String], timeout: Duration, output: @escaping @Sendable (String) -> Void
    ) async throws(CommandSpawnError) -> Outcome {
        var ends: [Int32] = [0, 0]
        guard reach_pipe_cloexec(&ends) == 0 else { throw CommandSpawnError(command: arguments.first ?? "", errno: errno) }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let setup = ProcessSpawn.Setup(
            outputDescriptor: writeEnd, environment: environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
        let exited = Latch()
        let group: ProcessGroup
        do {
            group = try ProcessGroup.start(arguments, setup: setup, terminal: nil) { _ in exited.open() }
        } catch {
            close(readEnd)
            close(writeEnd)
            throw error
        }
        close(writeEnd)
        let drained = Latch()
        WatcherThread.start {
            readLines(from: readEnd, into: output)
            close(readEnd)
            drained.open()
        }
        let timedOut = await withTaskGroup(of: Bool.self) { tasks in
            tasks.addTask {
                await exited.wait()
                return false
            }
            tasks.addTask {
                do { try await Task.sleep(for: timeout) } catch { return false }
                return true
            }
            let first = await tasks.next() ?? false
            tasks.cancelAll()
            return first
        }
        if timedOut || Task.isCancelled {
            await group.terminate(with: SIGTERM, killAfter: .seconds(2), sleep: { try await Task.sleep(for: $0) }, onKill: {})
        }
        await exited.wait()
        // A process the hook left behind (`daemon &`, or one that left the group) may keep the
        // output pipe open: its lines are still logged as they come, but the next hook does not
        // wait for it beyond a moment.
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await drained.wait() }
            tasks.addTask { try? await Task.sleep(for: .seconds(1)) }
            await tasks.next()
            tasks.cancelAll()
        }
        return Outcome(termination: group.termination ?? CommandTermination(pid: group.pid, exitStatus: 255), timedOut: timedOut)
    }

    /// Reads until every writer closed, handing over complete lines (cut at ``maxLineBytes``).
    private static func readLines(from descriptor: Int32, into output: (String) -> Void) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var cutting = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            for byte in buffer[..<count] {
                if byte == 0x0A {
                    if !cutting { output(String(decoding: pending, as: UTF8.self)) }
                    pending.removeAll(keepingCapacity: true)
                    cutting = false
                } else if cutting {
                    continue
                } else if pending.count < maxLineBytes {
                    pending.append(byte)
                } else {
                    output(String(decoding: pending, as: UTF8.self) + " [cut]")
                    pending.removeAll(keepingCapacity: true)
                    cutting = true
                }
            }
        }
        if !pending.isEmpty { output(String(decoding: pending, as: UTF8.self)) }
    }
}
