import ReachabilityCore
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization

/// One request of an upload, run next to a watchdog that ends it when it makes no progress
/// for `readTimeout`.
struct UploadExchange: Sendable {
    /// An answer's status and headers (a short body is read and dropped).
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
    }

    enum Result: Sendable {
        case answered(Answer)
        case failed(UploadHTTP.Failure)
        case cancelled
    }

    let client: HTTPClient
    let readTimeout: Duration
    /// The URL errors name (redacted) and the file they are about.
    let url: TransferURL
    let path: String

    func send(_ request: HTTPClientRequest, activity: ActivityClock) async -> Result {
        enum Child: Sendable {
            case finished(Result)
            case watchdog(fired: Bool)
        }
        let (client, url, path, timeout) = (client, url, path, readTimeout)
        activity.touch()
        let (result, timedOut) = await withTaskGroup(of: Child.self) { group in
            group.addTask {
                do {
                    let response = try await client.execute(request, deadline: .distantFuture)
                    activity.touch()
                    // Read a short answer to its end so the connection can be reused.
                    _ = try? await response.body.collect(upTo: 1 << 20)
                    return .finished(.answered(Answer(status: Int(response.status.code), headers: response.headers)))
                } catch {
                    if Task.isCancelled { return .finished(.cancelled) }
                    let failure = UploadHTTP.classify(error, url: url, path: path)
                    return .finished(failure.error.kind == .cancelled ? .cancelled : .failed(failure))
                }
            }
            group.addTask { .watchdog(fired: await activity.watch(timeout: timeout)) }
            var result = Result.cancelled
            var timedOut = false
            while let child = await group.next() {
                switch child {
                case .finished(let finished):
                    result = finished
                    group.cancelAll()
                case .watchdog(let fired):
                    if fired {
                        timedOut = true
                        group.cancelAll()
                    }
                }
            }
            return (result, timedOut)
        }
        if Task.isCancelled { return .cancelled }
        guard timedOut else { return result }
        if case .answered = result { return result }
        let error = TransferError(.timedOut, url: url.redacted, detail: "no progress for \(ByteCount.seconds(timeout))")
        return .failed(UploadHTTP.Failure(error: error, transient: true))
    }
}
