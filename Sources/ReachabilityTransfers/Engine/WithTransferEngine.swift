import ReachabilityCore
public import Reachability

/// Runs `body` with an engine of its own and ends it however `body` ends, as async-http-client's
/// `withHTTPClient`: every unfinished job is stopped (a download checkpoints its partial file)
/// and the engine's HTTP clients are shut down before this returns.
///
/// ```swift
/// let ok = try await withTransferEngine(monitor: NetworkMonitor()) { engine in
///     let id = try engine.submit(.download(DownloadRequest(url: url, destination: "/srv/update.img")))
///     return await engine.result(of: id)?.state == .succeeded
/// }
/// ```
/// - Parameters:
///   - monitor: the network the jobs are judged on.
///   - configuration: limits on running jobs.
///   - proxies: the proxies the engine's downloads and uploads use (by default the environment's).
public func withTransferEngine<Result: Sendable>(
    monitor: NetworkMonitor, configuration: TransferEngine.Configuration = TransferEngine.Configuration(),
    proxies: ProxySettings = ProxySettings.fromEnvironment(), _ body: (TransferEngine) async throws -> Result
) async throws -> Result {
    let engine = TransferEngine(monitor: monitor, downloader: Downloader(proxies: proxies), configuration: configuration)
    let result: Result
    do {
        result = try await body(engine)
    } catch {
        await engine.shutdown()
        try? await engine.downloader.shutdownGracefully()
        throw error
    }
    await engine.shutdown()
    try await engine.downloader.shutdownGracefully()
    return result
}
