import Glibc
import NIOHTTP1
import NIOSSL
import ReachabilityCore
import ReachabilityLinux

/// One probe of one round: connect out of the target's interface, ask once, judge the answer,
/// and record it. Every path ends in a ``ProbeRecord``; none throws.
struct EndpointProbe: Sendable {
    var target: ProbeTarget
    var namespace: NetworkNamespace?
    var deadline: ProbeDeadline
    /// The round's TLS context, or why there is none; nil when the round has no HTTPS URL.
    var tls: Result<NIOSSLContext, ProbeFailure>?
    var userAgent: String

    /// RFC 8908's media type for the API's answer.
    static let captiveMediaType = "application/captive+json"

    /// A configured probe URL, judged by ``ProbeResponseClassifier``.
    func probe(_ endpoint: ProbeEndpoint) async -> ProbeRecord {
        await record(url: endpoint.url, kind: endpoint.isHTTPS ? .https : .http) {
            let (address, result) = await fetch(endpoint, accept: "*/*")
            switch result {
            case .success(let response):
                let verdict = ProbeResponseClassifier.classify(
                    endpoint: endpoint, status: response.status, reason: response.reason, headers: response.headers, body: response.body)
                return (address, verdict)
            case .failure(let failure):
                return (address, ProbeVerdict(failure: failure.detail))
            }
        }
    }

    /// The network's RFC 8908 API, as announced (DHCP option 114). HTTPS is what the RFC
    /// requires; plain HTTP is accepted too, because a network that could lie through the API
    /// can lie through a redirect of the HTTP probe anyway, and a test server needs no certificate.
    func probeAPI(_ text: String) async -> ProbeRecord {
        let endpoint: ProbeEndpoint
        do {
            endpoint = try ProbeEndpoint(parsing: text)
        } catch {
            return await record(url: String(text.prefix(2048)), kind: .captivePortalAPI) {
                (nil, ProbeVerdict(failure: "API URL unusable: \(error.reason)"))
            }
        }
        return await record(url: endpoint.url, kind: .captivePortalAPI) {
            let (address, result) = await fetch(endpoint, accept: Self.captiveMediaType)
            switch result {
            case .success(let response): return (address, CaptivePortalAPIAnswer.judge(response))
            case .failure(let failure): return (address, ProbeVerdict(failure: failure.detail))
            }
        }
    }

    /// Connects and exchanges one request; the address is the one connected (or last tried).
    private func fetch(_ endpoint: ProbeEndpoint, accept: String) async -> (String?, Result<ProbeResponse, ProbeFailure>) {
        var exchangeTLS: ProbeExchange.TLS?
        if endpoint.isHTTPS {
            switch tls ?? ProbeTLS.context(caFile: nil) {
            case .success(let context):
                // An address literal has no name to check: NIOSSL checks the address instead.
                let literal = IPPrefix.parse(endpoint.host) != nil
                exchangeTLS = ProbeExchange.TLS(context: context, serverHostname: literal ? nil : endpoint.host)
            case .failure(let failure):
                return (nil, .failure(failure))
            }
        }
        let connection: ProbeConnection
        switch await ProbeConnection.open(
            host: endpoint.host, port: endpoint.port, target: target, namespace: namespace, deadline: deadline)
        {
        case .success(let made): connection = made
        case .failure(let failure): return (failure.address, .failure(failure.failure))
        }
        let request = ProbeRequest.head(for: endpoint, accept: accept, userAgent: userAgent)
        let result = await ProbeExchange.fetch(socket: connection.socket, request: request, tls: exchangeTLS, deadline: deadline)
        return (connection.address, result)
    }

    /// Times `body` and turns what it found into a record.
    private func record(
        url: String, kind: ProbeRecord.Kind, _ body: () async -> (address: String?, answer: ProbeVerdict)
    ) async -> ProbeRecord {
        let startedAt = Self.wallClockMilliseconds()
        let start = ContinuousClock.now
        let (address, answer) = await body()
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        return ProbeRecord(
            url: url, kind: kind, interface: target.interface, address: address, startedAt: startedAt,
            milliseconds: seconds * 1000 + attoseconds / 1_000_000_000_000_000, outcome: answer.outcome, portalURL: answer.portalURL,
            detail: answer.detail)
    }

    /// Milliseconds since the Unix epoch, for `startedAt`.
    static func wallClockMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
