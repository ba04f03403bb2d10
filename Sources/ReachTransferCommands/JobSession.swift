import ReachabilityTransfers

/// The jobs one `reach get` or `reach upload` submits to its engine, run to their end with
/// their events shown; the exit status is the worst of theirs.
struct JobSession {
    private let engine: TransferEngine
    private let display: ProgressDisplay
    private let events: JobEventFeed
    private let exitCode: (TransferError) -> Int32
    private var names: [JobID: (name: String, url: String)] = [:]
    private var worst: Int32 = 0

    /// - Parameter exitCode: the status for a job that failed with that error (also for one the
    ///   engine refused at submission).
    init(engine: TransferEngine, display: ProgressDisplay, exitCode: @escaping (TransferError) -> Int32) {
        self.engine = engine
        self.display = display
        self.exitCode = exitCode
        // Subscribed before the first submission, so no event is missed.
        events = engine.events()
    }

    /// Submits `job`, shown as `name` (the file) and `url` (redacted); a refusal is shown and
    /// counted at once, with `refused`'s status and message when given.
    mutating func submit(
        _ job: TransferJob, name: String, url: String, refused: ((TransferError) -> (status: Int32, message: String))? = nil
    ) {
        do {
            names[try engine.submit(job)] = (name, url)
        } catch {
            let (status, message) = refused?(error) ?? (exitCode(error), error.description)
            display.failed(name: name, url: url, message)
            worst = max(worst, status)
        }
    }

    /// Shows every event until all submitted jobs have ended, shuts the engine down, and
    /// returns the worst exit status.
    func run() async -> Int32 {
        var worst = worst
        var open = Set(names.keys)
        if open.isEmpty { return worst }
        for await event in events where open.contains(event.id) {
            guard let (name, url) = names[event.id] else { continue }
            display.show(event, name: name, url: url)
            switch event.state {
            case .succeeded:
                if let result = event.download {
                    display.done(name: name, url: url, result)
                } else if let result = event.upload {
                    display.done(name: name, url: url, result)
                } else {
                    display.streamed(name: name, url: url, bytes: event.progress.completedBytes)
                }
            case .failed(let error):
                display.failed(name: name, url: url, error.description)
                worst = max(worst, exitCode(error))
            default:
                break
            }
            if event.state.isFinal { open.remove(event.id) }
            if open.isEmpty { break }
        }
        await engine.shutdown()
        return worst
    }
}
