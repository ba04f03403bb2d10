import Glibc

/// Ends the process (status 0) as soon as the reader of standard output goes away, for the
/// commands that print until interrupted: `reach watch | head -1` ends at once, not at the next
/// change it would fail to write.
///
/// Only a pipe or a socket can tell: when the reading end is closed, `poll` reports `POLLERR`
/// (pipe) or `POLLHUP` (socket) on the writing end even with no events asked for. A terminal or
/// a file is left alone. A thread of its own waits in `poll`, so no task of the cooperative
/// pool blocks.
package enum ReaderWatch {
    /// Starts watching; returns at once (and does nothing for a terminal or a file).
    package static func exitWhenStandardOutputCloses() {
        var info = stat()
        guard fstat(STDOUT_FILENO, &info) == 0 else { return }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFIFO || kind == S_IFSOCK else { return }
        var thread = pthread_t()
        _ = pthread_create(&thread, nil, { _ in
            var entry = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
            while true {
                let ready = poll(&entry, 1, -1)
                if ready < 0 && errno == EINTR { continue }
                if ready < 0 { return nil }
                if entry.revents & Int16(POLLERR | POLLHUP) != 0 { exit(0) }
                // POLLNVAL: descriptor 1 was closed under us; nothing to watch.
                if entry.revents & Int16(POLLNVAL) != 0 { return nil }
            }
        }, nil)
        pthread_detach(thread)
    }
}
