import ReachabilityCore
import NIOCore

/// Runs a task's jobs on one NIO event loop (`withTaskExecutorPreference`).
///
/// async-http-client makes a new connection on the loop it is called from, so a download
/// running here receives each body chunk on the thread that read it from the socket, with no
/// wake-up of another thread per 64 KiB chunk.
final class EventLoopTaskExecutor: _Concurrency.TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
