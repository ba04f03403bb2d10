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
    /// used. Names are resolved off the cooperative thread pool, at most once a minute per host
    /// and again when the default path moves to another interface.
    ///
    /// - Parameter host: a name or an address literal (an IPv6 literal with or without brackets).
    /// Every stream for one host shares one judgement per change (``DestinationJudge``): a
    /// thousand jobs waiting on one server cost one route lookup per change, not a thousand.
    public func networks(to host: String) -> AsyncThrowingStream<TransferNetwork, any Error> {
        destinationJudge.subscribe(Self.bareHost(host))
    }

    /// ``networks(to:)`` handed to `deliver` as they come, without a stream or a task.
    func watchNetworks(to host: String, deliver: @escaping DestinationJudge.Delivery) -> DestinationJudge.Subscription {
        destinationJudge.subscribe(Self.bareHost(host), deliver: deliver)
    }

    private static func bareHost(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
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
