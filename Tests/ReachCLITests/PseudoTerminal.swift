import Foundation
import Glibc
import ReachabilityTestKit
import Synchronization

/// A pseudo-terminal whose slave side is the controlling terminal of a new session: the test
/// types into the master side (keys, Ctrl-Z, Ctrl-C) and reads what the programs write, as a
/// user at a terminal would.
final class PseudoTerminal: Sendable {
    /// The session leader, started on the terminal.
    let leader: pid_t
    private let master: Int32
    private let output = Output()

    /// What the reader thread collected, shared with it.
    private final class Output: Sendable {
        let bytes = Mutex<[UInt8]>([])
        /// The reader saw the end of the terminal (every slave descriptor closed).
        let ended = Mutex(false)
    }

    /// Starts `arguments` (an absolute path first) as the leader of a new session whose
    /// controlling terminal is a fresh pseudo-terminal, with `environment`.
    init(_ arguments: [String], environment: [String]) throws {
        let master = PTYCalls.open(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0, PTYCalls.grant(master) == 0, PTYCalls.unlock(master) == 0, let name = PTYCalls.name(master) else {
            throw TestNamespaceError(message: "no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let slavePath = String(cString: name)
        self.master = master
        leader = try Self.spawn(arguments, environment: environment, terminal: slavePath)
        let output = self.output
        // A thread of its own: `read` blocks until the programs write or the terminal closes.
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(master, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                // EIO: every slave descriptor is closed (the session ended).
                if count <= 0 { break }
                output.bytes.withLock { $0.append(contentsOf: buffer[0..<count]) }
            }
            output.ended.withLock { $0 = true }
        }.start()
    }

    /// posix_spawn with POSIX_SPAWN_SETSID; the slave opened as descriptor 0 (without O_NOCTTY)
    /// becomes the new session's controlling terminal.
    private static func spawn(_ arguments: [String], environment: [String], terminal: String) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        let setSession: Int32 = 0x80  // POSIX_SPAWN_SETSID, a GNU extension Swift does not import
        posix_spawnattr_setflags(&attributes, Int16(setSession | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, terminal, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, &envp)
        guard result == 0 else { throw TestNamespaceError(message: "cannot start \(arguments[0]): \(String(cString: strerror(result)))") }
        return pid
    }

    /// Everything written to the terminal so far (echoed keys included).
    var text: String { String(decoding: output.bytes.withLock { $0 }, as: UTF8.self) }

    /// Types `text` (`"\u{1a}"` is Ctrl-Z, `"\u{03}"` Ctrl-C).
    func type(_ text: String) {
        var bytes = Array(text.utf8)
        _ = write(master, &bytes, bytes.count)
    }

    /// Waits until the output after the first `after` characters contains `expected`, at most
    /// `bound`; returns the position after it.
    @discardableResult
    func waitFor(_ expected: String, after: String.Index? = nil, bound: Duration = .seconds(30)) async throws -> String.Index {
        let deadline = ContinuousClock.now + bound
        repeat {
            let text = self.text
            if let range = text.range(of: expected, range: (after ?? text.startIndex)..<text.endIndex) { return range.upperBound }
            try await Task.sleep(for: .milliseconds(10))
        } while ContinuousClock.now < deadline
        throw TestNamespaceError(message: "\(expected.debugDescription) never appeared; the terminal shows: \(text.debugDescription)")
    }

    /// The leader's exit status once it has exited (waited for at most `bound`); nil if it has not.
    func waitForExit(bound: Duration = .seconds(30)) async -> Int32? {
        let deadline = ContinuousClock.now + bound
        repeat {
            var status: Int32 = 0
            if waitpid(leader, &status, WNOHANG) == leader { return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
            try? await Task.sleep(for: .milliseconds(10))
        } while ContinuousClock.now < deadline
        return nil
    }

    /// Ends the session for good: SIGKILL to the leader and to `others` still there (a failed
    /// test's stragglers), reaps the leader, and closes the master side.
    func close(killing others: [Int32?] = []) {
        for case let pid? in others where !ProcessProbe.isGone(pid) { kill(pid, SIGKILL) }
        if waitpid(leader, nil, WNOHANG) == 0 {
            kill(leader, SIGKILL)
            waitpid(leader, nil, 0)
        }
        // Closed only once the reader has seen the end: a descriptor closed under a blocked
        // `read` could be reused and read by it. A straggler holding the terminal leaks it.
        for _ in 0..<500 where !output.ended.withLock({ $0 }) { usleep(10_000) }
        if output.ended.withLock({ $0 }) { Glibc.close(master) }
    }
}

/// libc's pseudo-terminal calls, which Swift's Glibc module does not import (they need
/// `_XOPEN_SOURCE`): looked up by name.
private enum PTYCalls {
    typealias OpenCall = @convention(c) (Int32) -> Int32
    typealias NameCall = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    private static func function<F>(_ name: String, as type: F.Type) -> F {
        guard let symbol = dlsym(nil, name) else { fatalError("libc has no \(name)") }
        return unsafeBitCast(symbol, to: type)
    }

    static func open(_ flags: Int32) -> Int32 { function("posix_openpt", as: OpenCall.self)(flags) }
    static func grant(_ descriptor: Int32) -> Int32 { function("grantpt", as: OpenCall.self)(descriptor) }
    static func unlock(_ descriptor: Int32) -> Int32 { function("unlockpt", as: OpenCall.self)(descriptor) }
    static func name(_ descriptor: Int32) -> UnsafeMutablePointer<CChar>? { function("ptsname", as: NameCall.self)(descriptor) }
}
