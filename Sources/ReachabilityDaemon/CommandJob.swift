import Foundation
import Reachability
import ReachabilityCore

/// Runs a command job: `reach run --when …` with retries. The command runs under a
/// ``TransferGate`` (suspended or terminated when the network stops allowing it), its output
/// appended to a log file of its own; a non-zero exit is retried after a backoff (30 s doubling,
/// at most an hour) until the job's attempts are used up.
struct CommandJob: Sendable {
    /// What a command job reports as it goes.
    enum Update: Sendable {
        case running(network: String?)
        case waiting(TransferWaitReason)
        case retrying(at: Date, cause: String)
        case attemptStarted
    }

    let spec: CommandSpec
    let policy: TransferPolicy
    let maxAttempts: Int
    let logPath: String
    /// The most its log holds before it is rotated (one older file is kept).
    var logLimit: Int64 = 10 << 20
    let monitor: NetworkMonitor
    /// Where its running process is recorded, under `jobID`, for the next start to end it
    /// after a crash.
    let children: CommandChildren
    let jobID: Int64
    /// First backoff; doubled per failed run.
    var retryDelay: Duration = .seconds(30)

    /// Runs until the command succeeds or the attempts are used up; throws `CancellationError`
    /// when cancelled (the command's group is terminated first).
    /// How the job ended.
    enum Outcome: Sendable {
        case succeeded(QueueResult)
        case failed(QueueReason)
    }

    func run(previousAttempts: Int, update: @escaping @Sendable (Update) -> Void) async throws -> Outcome {
        var failures = 0
        var attempt = previousAttempts
        while true {
            attempt += 1
            update(.attemptStarted)
            let termination = try await runOnce(update: update)
            if termination.exitStatus == 0 { return .succeeded(QueueResult(exitStatus: 0)) }
            failures += 1
            let cause = "\(spec.arguments[0]) \(termination)"
            guard failures < maxAttempts else {
                return .failed(QueueReason(code: "exitStatus", message: "\(cause) (\(failures) of \(maxAttempts) attempts)"))
            }
            let delay = Self.backoff(retryDelay, failures: failures)
            let until = Date().addingTimeInterval(Double(delay.components.seconds))
            update(.retrying(at: until, cause: cause))
            try await Task.sleep(for: delay)
        }
    }

    /// `base` doubled per failure after the first, at most an hour.
    static func backoff(_ base: Duration, failures: Int) -> Duration {
        let factor = 1 << min(max(failures - 1, 0), 20)
        return min(base * factor, .seconds(3600))
    }

    private func runOnce(update: @escaping @Sendable (Update) -> Void) async throws -> CommandTermination {
        let options = CommandExecutor.Options(
            onDisallow: spec.onDisallow == "terminate" ? .terminate : .suspend,
            killAfter: .milliseconds(Int64((spec.killAfterSeconds ?? 10) * 1000)),
            usesTerminal: false, workingDirectory: spec.workingDirectory, outputPath: logPath, outputLimit: logLimit)
        let (children, jobID) = (self.children, self.jobID)
        let executor = CommandExecutor(spec.arguments, options: options) { event in
            if case .started(let pid, _) = event { children.record(job: jobID, pid: pid) }
        }
        defer { children.forget(job: jobID) }
        let gate = TransferGate(monitor: monitor, policy: policy)
        return try await gate.drive(executor) { event in
            switch event {
            case .waiting(let reason), .paused(let reason): update(.waiting(reason))
            case .started, .resumed: update(.running(network: nil))
            }
        }
    }
}
