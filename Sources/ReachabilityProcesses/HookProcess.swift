import CGNULibc
import Glibc
import Synchronization

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
        /// Output lines not handed over: beyond ``maxLines``, or after the hook ended.
        public let droppedLines: Int
        /// Something the hook started outlived it and was ended (its group terminated, its
        /// output no longer read).
        public let endedLeftovers: Bool
    }

    /// The most output lines handed over per run; the rest are read and counted, not kept (5 s
    /// of `yes` is a million lines).
    public static let maxLines = 200

    /// The longest output line handed over; longer ones are cut (a hook that prints megabytes
    /// on one line must not hold them in the daemon).
    public static let maxLineBytes = 4096

    /// Runs `arguments` (the first an absolute path) with `environment`, handing each output
    /// line to `output`, for at most `timeout`. With `directory` (an open directory's
    /// descriptor), `arguments[0]` is a name in it, run through that descriptor
    /// (`/proc/self/fd/3/NAME`): the directory checked is the one it runs from, even if it was
    /// renamed or replaced meanwhile.
    public static func run(
        _ arguments: [String], directory: Int32? = nil, environment: [String: String], timeout: Duration,
        output: @escaping @Sendable (String) -> Void
    ) async throws(CommandSpawnError) -> Outcome {
        var ends: [Int32] = [0, 0]
        guard reach_pipe_cloexec(&ends) == 0 else { throw CommandSpawnError(command: arguments.first ?? "", errno: errno) }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        var setup = ProcessSpawn.Setup(
            outputDescriptor: writeEnd, environment: environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
        setup.directoryDescriptor = directory
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
        let reader = OutputReader(descriptor: readEnd, output: output)
        WatcherThread.start {
            reader.run()
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
        // output pipe open. It gets a moment to finish; then the pipe is no longer read (its
        // writes fail), and what is left of the group is terminated: a hook's run ends with it,
        // and no thread or descriptor of the daemon waits on its leftovers.
        let finished = await withTaskGroup(of: Bool.self) { tasks in
            tasks.addTask { await drained.wait(); return true }
            tasks.addTask { try? await Task.sleep(for: .seconds(1)); return false }
            let first = await tasks.next() ?? true
            tasks.cancelAll()
            return first
        }
        if !finished {
            reader.stop()
            await group.terminate(with: SIGTERM, killAfter: .seconds(2), sleep: { try await Task.sleep(for: $0) }, onKill: {})
            await drained.wait()
        }
        return Outcome(
            termination: group.termination ?? CommandTermination(pid: group.pid, exitStatus: 255), timedOut: timedOut,
            droppedLines: reader.dropped, endedLeftovers: !finished)
    }

}

/// Reads a hook's output pipe until every writer closed or ``stop()``: complete lines, cut at
/// ``HookProcess/maxLineBytes``, at most ``HookProcess/maxLines`` of them handed over.
private final class OutputReader: Sendable {
    let descriptor: Int32
    let output: @Sendable (String) -> Void
    private let stopped = Atomic<Bool>(false)
    private let droppedCount = Atomic<Int>(0)
    private let handed = Atomic<Int>(0)

    init(descriptor: Int32, output: @escaping @Sendable (String) -> Void) {
        self.descriptor = descriptor
        self.output = output
    }

    var dropped: Int { droppedCount.load(ordering: .relaxed) }

    func stop() { stopped.store(true, ordering: .relaxed) }

    private func hand(_ line: String) {
        if handed.load(ordering: .relaxed) < HookProcess.maxLines {
            handed.wrappingAdd(1, ordering: .relaxed)
            output(line)
        } else {
            droppedCount.wrappingAdd(1, ordering: .relaxed)
        }
    }

    func run() {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var cutting = false
        // Polled, so that ``stop()`` ends the read even while a leftover keeps the pipe open.
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while !stopped.load(ordering: .relaxed) {
            let ready = poll(&poller, 1, 100)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { continue }
            guard ready > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { break }
            for byte in buffer[..<count] {
                if byte == 0x0A {
                    if !cutting { hand(String(decoding: pending, as: UTF8.self)) }
                    pending.removeAll(keepingCapacity: true)
                    cutting = false
                } else if cutting {
                    continue
                } else if pending.count < HookProcess.maxLineBytes {
                    pending.append(byte)
                } else {
                    hand(String(decoding: pending, as: UTF8.self) + " [cut]")
                    pending.removeAll(keepingCapacity: true)
                    cutting = true
                }
            }
        }
        if !pending.isEmpty { hand(String(decoding: pending, as: UTF8.self)) }
    }
}
