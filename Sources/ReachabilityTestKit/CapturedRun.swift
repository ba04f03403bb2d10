import CGNULibc
import Glibc

/// A command run to its end with its standard input given and its output and errors captured
/// (`ip`, `id`, `useradd` for the tests), through `posix_spawnp` and pipes read together with
/// `poll`, so a command that fills one pipe while the other is read never blocks.
struct CapturedRun {
    var status: Int32
    var output: [UInt8]
    var errors: [UInt8]

    /// Runs `command` (looked up in `PATH`), writes `input` to its standard input and closes it.
    init(_ command: [String], input: [UInt8]) throws {
        var pipes = [[Int32]](repeating: [-1, -1], count: 3)
        for index in 0..<3 {
            guard pipe(&pipes[index]) == 0 else { throw TestNamespaceError(message: "pipe: \(String(cString: strerror(errno)))") }
            // Not inherited by what another thread spawns meanwhile.
            for fd in pipes[index] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        defer { for pair in pipes { for fd in pair where fd >= 0 { close(fd) } } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipes[0][0], 0)
        posix_spawn_file_actions_adddup2(&actions, pipes[1][1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipes[2][1], 2)
        _ = reach_spawn_add_closefrom(&actions, 3)
        let child = try ChildSpawn.spawn(command, actions: &actions, newProcessGroup: false)
        for (index, end) in [(0, 0), (1, 1), (2, 1)] {
            close(pipes[index][end])
            pipes[index][end] = -1
        }
        var (stdin, stdout, stderr) = (pipes[0][1], pipes[1][0], pipes[2][0])
        (output, errors) = Self.exchange(input: input, stdin: &stdin, stdout: &stdout, stderr: &stderr)
        (pipes[0][1], pipes[1][0], pipes[2][0]) = (stdin, stdout, stderr)
        var waitStatus: Int32 = 0
        while waitpid(child, &waitStatus, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS: the exit code, or 128 + the signal that ended it.
        status = waitStatus & 0x7f == 0 ? (waitStatus >> 8) & 0xff : 128 + (waitStatus & 0x7f)
    }

    /// Writes `input` and reads both outputs until the command closes them; each descriptor is
    /// closed (and set to -1) when it is done.
    private static func exchange(input: [UInt8], stdin: inout Int32, stdout: inout Int32, stderr: inout Int32) -> ([UInt8], [UInt8]) {
        var written = 0
        var collected: [[UInt8]] = [[], []]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        if input.isEmpty {
            close(stdin)
            stdin = -1
        }
        while stdout >= 0 || stderr >= 0 || stdin >= 0 {
            var fds = [
                pollfd(fd: stdin, events: Int16(POLLOUT), revents: 0), pollfd(fd: stdout, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stderr, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&fds, 3, -1) >= 0 || errno == EINTR else { break }
            if stdin >= 0, fds[0].revents != 0 {
                let count = input.withUnsafeBytes { write(stdin, $0.baseAddress! + written, $0.count - written) }
                if count > 0 { written += count }
                if count < 0 && errno != EINTR && errno != EAGAIN || written == input.count {
                    close(stdin)
                    stdin = -1
                }
            }
            for (slot, index) in [(0, 1), (1, 2)] where fds[index].fd >= 0 && fds[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[slot].append(contentsOf: buffer[0..<count])
                } else if count == 0 || errno != EINTR {
                    close(fds[index].fd)
                    if index == 1 { stdout = -1 } else { stderr = -1 }
                }
            }
        }
        return (collected[0], collected[1])
    }
}
