import Foundation
import ReachabilityCore
import ReachabilityDaemon

/// How `reach queue` shows jobs to people: one line each, the reason in words.
enum QueueFormat {
    /// A table of `jobs`, with a header; "no jobs" when empty.
    static func table(_ jobs: [QueueJob]) -> String {
        guard !jobs.isEmpty else { return "no jobs" }
        let rows = [["ID", "STATE", "PROGRESS", "JOB", "WHY"]] + jobs.map { [String($0.id), $0.state.rawValue, progress($0), what($0), why($0)] }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            (0..<4).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ") + "  " + row[4]
        }.joined(separator: "\n")
    }

    /// `7 paused 1.2 MiB/10.0 MiB download http://… → /srv/x: queued for an unmetered network (…)`.
    static func line(_ job: QueueJob) -> String {
        let reason = why(job)
        return "\(job.id) \(job.state.rawValue) \(progress(job)) \(what(job))" + (reason.isEmpty ? "" : ": " + reason)
    }

    /// `show`: the job and its history.
    static func detail(_ detail: QueueJobDetail) -> String {
        let job = detail.job
        var lines = [
            "job \(job.id): \(job.spec.kind) \(what(job))",
            "state: \(job.state)" + (job.reason.map { " (\($0.message))" } ?? ""),
            "progress: \(progress(job)), \(ByteCount.text(job.progress.transferredBytes)) moved, \(job.attempts) attempt\(job.attempts == 1 ? "" : "s")",
            "constraints: \(constraints(job.spec))",
            "added: \(QueueTime.text(job.createdAt))",
        ]
        if let network = job.network { lines.append("network: \(network)") }
        if let result = job.result {
            var parts: [String] = []
            if let path = result.path { parts.append(path) }
            if let bytes = result.bytes { parts.append(ByteCount.text(bytes)) }
            if let sha = result.sha256 { parts.append("sha256 \(sha)") }
            if let status = result.exitStatus { parts.append("exit status \(status)") }
            lines.append("result: " + parts.joined(separator: ", "))
        }
        if let log = detail.logPath { lines.append("log: \(log)") }
        lines.append("history:")
        lines += detail.history.map { "  \(QueueTime.text($0.at))  \($0.state)" + ($0.reason.map { "  \($0)" } ?? "") }
        return lines.joined(separator: "\n")
    }

    static func progress(_ job: QueueJob) -> String {
        if job.spec.kind == .command { return "-" }
        guard let total = job.progress.totalBytes else { return ByteCount.text(job.progress.completedBytes) }
        return "\(ByteCount.text(job.progress.completedBytes))/\(ByteCount.text(total))"
    }

    static func what(_ job: QueueJob) -> String {
        let spec = job.spec
        if let download = spec.download { return "get \(download.url) → \(download.destination ?? "?")" }
        if let upload = spec.upload { return "upload \(upload.file) → \(upload.url)" }
        if let command = spec.command { return "run " + command.arguments.joined(separator: " ") }
        return spec.kind.rawValue
    }

    static func why(_ job: QueueJob) -> String {
        guard let reason = job.reason else { return job.state == .running ? (job.network.map { "on \($0)" } ?? "") : "" }
        return reason.message
    }

    static func constraints(_ spec: QueueJobSpec) -> String {
        var parts = [spec.constraints.when ?? "any"]
        if spec.constraints.noCellular == true { parts.append("no cellular") }
        if spec.constraints.noExpensive == true { parts.append("no expensive") }
        if let limit = spec.constraints.maxCellularBytes { parts.append("at most \(ByteCount.text(limit)) on cellular") }
        if let notBefore = spec.notBefore { parts.append("not before \(QueueTime.text(notBefore))") }
        parts.append("priority \(spec.priority?.rawValue ?? "normal")")
        return parts.joined(separator: ", ")
    }
}
