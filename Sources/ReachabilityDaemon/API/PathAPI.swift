import FoundationEssentials
import ReachabilityControl
import Reachability
import ReachabilityCore

/// The read-only part of the daemon's API: the path, its changes, and the network towards one
/// destination. Served on the control socket and, for every local user, on the path socket
/// (``DaemonConfiguration/pathSocketPath``), which serves nothing else: jobs stay their
/// owner's and root's.
struct PathAPI: Sendable {
    let paths: PathFeed
    /// The network traffic to a host takes now, as the peer with this user id asks (a one-off
    /// judgement: `DestinationLookup`); nil: not served (tests without a monitor).
    let destination: (@Sendable (String, UInt32) async throws -> TransferNetwork)?
    /// The path with its budgets' states on fresh counts, when budgets exist (nil: the feed's
    /// latest path answers, as without budgets).
    var freshPath: (@Sendable () async -> NetworkPath?)? = nil
    /// Who reads it: the owner (the control socket) gets the whole path document, every user
    /// (`path.sock`) only what programs need to decide (`PathJSON.sharedText`).
    var audience: Audience = .owner

    enum Audience: Sendable {
        case owner
        case everyone
    }

    /// The longest host name asked about (a DNS name is at most 253 characters).
    static let maxHostLength = 253

    /// The answer for `request`, or nil when it is not a path endpoint.
    func handle(_ request: ControlRequest) async -> ControlResponse? {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.first == "v1", parts.count >= 2 else { return nil }
        switch (parts[1], parts.count) {
        case ("path", 2):
            guard request.method == "GET" else { return QueueAPI.notAllowed(request, allow: "GET") }
            let shared = audience == .everyone
            if let freshPath, let path = await freshPath() {
                return .json(status: 200, Array((shared ? PathJSON.sharedText(path) : PathJSON.text(path)).utf8))
            }
            return .json(status: 200, Array((shared ? paths.latestSharedJSON() : paths.latestJSON()).utf8))
        case ("path", 3) where parts[2] == "events":
            guard request.method == "GET" else { return QueueAPI.notAllowed(request, allow: "GET") }
            // The path's documents as JSON lines, the current one first.
            return .stream(status: 200, contentType: "application/x-ndjson", paths.subscribe(audience == .everyone ? .shared : .document))
        case ("route", 2):
            guard request.method == "GET" else { return QueueAPI.notAllowed(request, allow: "GET") }
            return await route(request)
        default:
            return nil
        }
    }

    /// `GET /v1/route?host=H`: `{"host","reachable","network"}`, as `reach status --to` judges it.
    private func route(_ request: ControlRequest) async -> ControlResponse {
        guard let host = request.query["host"], !host.isEmpty else {
            return QueueAPI.failure(400, "badRequest", "host is required: /v1/route?host=NAME")
        }
        guard host.count <= Self.maxHostLength, host.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            return QueueAPI.failure(400, "badRequest", "not a host name or address: '\(host.prefix(40))'")
        }
        guard let destination else { return QueueAPI.failure(404, "notFound", "no route answers here") }
        do {
            // A connection without credentials (none on a Unix socket) shares one caller's share.
            let network = try await destination(host, request.peer?.uid ?? .max)
            return QueueAPI.json(200, RouteAnswer(host: host, network: network))
        } catch let busy as DestinationLookup.Busy {
            var response = QueueAPI.failure(429, "tooManyLookups", busy.description)
            response.headers.append(("Retry-After", "1"))
            return response
        } catch {
            return QueueAPI.failure(503, "unavailable", "the network monitor cannot answer: \(error)")
        }
    }
}

/// `GET /v1/route`'s answer.
struct RouteAnswer: Encodable {
    var host: String
    /// Traffic to the host has a route that can carry it (or the host is this one).
    var reachable: Bool
    var status: String
    var expensive: Bool
    var local: Bool
    var interface: String?
    var connectivity: String?

    init(host: String, network: TransferNetwork) {
        self.host = host
        reachable = network.isLocal || network.status != .unreachable
        status = network.status.rawValue
        expensive = network.isExpensive
        local = network.isLocal
        interface = network.interface?.name
        connectivity = network.connectivity?.rawValue
    }
}
