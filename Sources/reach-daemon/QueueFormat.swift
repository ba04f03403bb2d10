import ReachabilityTransfers
import FoundationEssentials
import ReachabilityCore
import ReachabilityDaemon

/// How `reach queue` shows jobs to people: one line each, the reason in words.
enum QueueFormat {
    /// A table of `jobs`, with a header; "no jobs" when empty.
    static func table(_ jobs: [QueueJobSummary]) -> String {
        guard !jobs.isEmpty else { return "no jobs" }
        // What a job says comes from its adder and its server: printed escaped, never raw.
        let rows = [["ID", "STATE", "PROGRESS", "JOB", "WHY"]]
            + jobs.map { [String($0.id), TerminalText.safe($0.state.rawValue), progress($0), TerminalText.safe($0.title), TerminalText.safe(why($0))] }
        return columns(rows)
    }

    /// Rows as columns two spaces apart, the last one unpadded (every row as long as the first).
    static func columns(_ rows: [[String]]) -> String {
        let padded = (rows.first?.count ?? 1) - 1
        // Widths in characters, counted once per cell (`count` walks the string).
        let counts = rows.map { row in row.prefix(padded).map(\.count) }
        let widths = (0..<padded).map { column in counts.map { $0[column] }.max() ?? 0 }
        var text = ""
        text.reserveCapacity(rows.count * (widths.reduce(0, +) + 40))
        for (index, row) in rows.enumerated() {
            if index > 0 { text += "\n" }
            for column in 0..<padded {
                text += row[column]
                text += String(repeating: " ", count: widths[column] - counts[index][column] + 2)
            }
            text += row[padded]
        }
        return text
    }

    /// `7 paused 1.2 MiB/10.0 MiB download http://… → /srv/x: queued for an unmetered network (…)`.
    static func line(_ job: QueueJob) -> String {
        let summary = job.summary
        let reason = why(summary)
        return TerminalText.safe("\(job.id) \(job.state.rawValue) \(progress(summary)) \(summary.title)" + (reason.isEmpty ? "" : ": " + reason))
    }

    /// `show`: the job and its history.
    static func detail(_ detail: QueueJobDetail) -> String {
        let job = detail.job
        var lines = [
            "job \(job.id): \(job.spec.kind) \(job.spec.title)",
            "state: \(job.state)" + (job.reason.map { " (\($0.message))" } ?? ""),
            "progress: \(progress(job.summary)), \(ByteCount.text(job.progress.transferredBytes)) moved, \(job.attempts) attempt\(job.attempts == 1 ? "" : "s")",
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
        return lines.map(TerminalText.safe).joined(separator: "\n")
    }

    static func progress(_ job: QueueJobSummary) -> String {
        if job.kind == .command { return "-" }
        guard let total = job.progress.totalBytes else { return ByteCount.text(job.progress.completedBytes) }
        return "\(ByteCount.text(job.progress.completedBytes))/\(ByteCount.text(total))"
    }

    static func why(_ job: QueueJobSummary) -> String {
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
