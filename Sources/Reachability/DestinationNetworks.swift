import Dispatch
public import ReachabilityCore
import ReachabilityLinux
import Synchronization

extension NetworkMonitor {
    /// The network traffic to `host` takes: now, then after every change of the kernel's state
    /// that changes it — links, addresses and the default path, but also a route or rule that
    /// only this destination uses. A LAN server is judged by the interface that reaches it, with
    /// or without a default route; a host routed over a specific interface by that interface's
    /// type and cost; an address of this host is `TransferNetwork.isLocal`.
    ///
    /// While `host` does not resolve (no DNS without a network), the default path's network is
    /// used. Names are resolved off the cooperative thread pool, again on each change.
    ///
    /// - Parameter host: a name or an address literal (an IPv6 literal with or without brackets).
    public func networks(to host: String) -> AsyncThrowingStream<TransferNetwork, any Error> {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let observer = subscriberIDs.wrappingAdd(1, ordering: .relaxed).newValue
        snapshotObservers.withLock { $0[observer] = changed }
        let (output, continuation) = AsyncThrowingStream.makeStream(of: TransferNetwork.self, bufferingPolicy: .bufferingNewest(1))
        let paths = self.paths
        let task = Task { [weak self] in
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // Keeps the source running and wakes the loop below on path changes.
                    // A failing source ends the loop below, and its error ends the stream.
                    group.addTask {
                        defer { changed.finish() }
                        for try await _ in paths { changed.yield() }
                    }
                    var last: TransferNetwork?
                    for await _ in changes {
                        guard let self else { break }
                        let network = await self.judge(bare)
                        if network != last {
                            last = network
                            continuation.yield(network)
                        }
                    }
                    group.cancelAll()
                    try await group.waitForAll()
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { [weak self] _ in
            task.cancel()
            _ = self?.snapshotObservers.withLock { $0.removeValue(forKey: observer) }
            changed.finish()
        }
        return output
    }

    /// The network for `host` now, computed on a dispatch thread (name resolution and the
    /// route lookup block).
    func judge(_ host: String) async -> TransferNetwork {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: self.judgeNow(host))
            }
        }
    }

    private func judgeNow(_ host: String) -> TransferNetwork {
        let addresses: [String]
        do throws(ResolutionError) {
            addresses = try HostResolver.addresses(of: host)
        } catch {
            return (try? currentPath()).map(TransferNetwork.init(path:)) ?? .unreachable
        }
        guard let routes = try? routes(toAddresses: addresses) else { return .unreachable }
        return Self.withConnectivity(TransferNetwork(routes: routes), routes: routes, path: latestPath)
    }

    /// Traffic through a gateway needs the Internet: it carries what validation found on the
    /// egress interface. An on-link (LAN) destination does not, and stays `unknown`.
    static func withConnectivity(_ network: TransferNetwork, routes: [DestinationRoute], path: NetworkPath?) -> TransferNetwork {
        guard let route = routes.first(where: { $0.isLocal || $0.isUsable }), route.gateway != nil, !route.isLocal,
            let validation = path?.interface(named: route.interface.name)?.validation
        else { return network }
        var judged = network
        judged.connectivity = validation.connectivity
        judged.portalURL = validation.portalURL
        return judged
    }
}
