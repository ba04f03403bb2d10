public import Reachability
public import ReachabilityCore
import NIOSSL
import ReachabilityLinux

/// The real ``ConnectivityProber``: HTTP and HTTPS probes and the RFC 8908 captive-portal API,
/// the way NetworkManager and Android check a network, each sent out of the interface it
/// judges.
///
/// Every probe of a round runs at once, on its own TCP connection made inside the target's
/// network namespace and bound to its interface (`SO_BINDTODEVICE`), with names resolved
/// through that interface's DNS servers. One `GET` each, redirects not followed (a redirect is
/// the answer), no cookies; at most 64 KiB of an answer is read. The whole round — DNS,
/// connect, TLS and the answer — ends at `validation.timeout`; whatever has not answered by
/// then is a `failure` record saying so.
///
/// ```swift
/// let prober = HTTPConnectivityProber()
/// let records = await prober.probe(target, validation: validation)
/// ```
public struct HTTPConnectivityProber: ConnectivityProber {
    /// The `User-Agent` probes send unless told otherwise.
    public static let defaultUserAgent = "reach/0.2.0"

    /// The `User-Agent` header of every probe: printable ASCII, at most 128 characters.
    public let userAgent: String

    /// A prober; `userAgent` names the program in each request (`reach/0.2.0`). Anything but
    /// printable ASCII is dropped from it, so it can never break the request's header block.
    public init(userAgent: String = HTTPConnectivityProber.defaultUserAgent) {
        let printable = userAgent.unicodeScalars.filter { (0x20...0x7E).contains($0.value) }.prefix(128)
        self.userAgent = printable.isEmpty ? Self.defaultUserAgent : String(String.UnicodeScalarView(printable))
    }

    /// One round on `target`: the endpoints of `validation` in parallel, then their records
    /// in endpoint order, the RFC 8908 API's (when the target names one) last.
    public func probe(_ target: ProbeTarget, validation: ConnectivityValidation) async -> [ProbeRecord] {
        let deadline = ProbeDeadline(timeout: validation.timeout)
        var namespace: NetworkNamespace?
        if let path = target.namespacePath {
            do {
                namespace = try NetworkNamespace(path: path)
            } catch {
                return Self.unprobed(target, validation: validation, detail: "cannot enter the network namespace: \(error)")
            }
        }
        let needsTLS =
            validation.endpoints.contains(where: \.isHTTPS) || target.captivePortalAPI?.lowercased().hasPrefix("https://") == true
        let probe = EndpointProbe(
            target: target, namespace: namespace, deadline: deadline, tls: needsTLS ? ProbeTLS.context(caFile: validation.caFile) : nil,
            userAgent: userAgent)
        let endpoints = validation.endpoints
        let api = target.captivePortalAPI
        var records = [ProbeRecord?](repeating: nil, count: endpoints.count + (api == nil ? 0 : 1))
        await withTaskGroup(of: (Int, ProbeRecord).self) { group in
            for (index, endpoint) in endpoints.enumerated() {
                group.addTask { (index, await probe.probe(endpoint)) }
            }
            if let api {
                group.addTask { (endpoints.count, await probe.probeAPI(api)) }
            }
            for await (index, record) in group { records[index] = record }
        }
        return records.compactMap { $0 }
    }

    /// A failure record for every probe of the round, when none could be sent.
    private static func unprobed(_ target: ProbeTarget, validation: ConnectivityValidation, detail: String) -> [ProbeRecord] {
        let endpoints = validation.endpoints.map { ($0.url, $0.isHTTPS ? ProbeRecord.Kind.https : .http) }
        let api = target.captivePortalAPI.map { [(String($0.prefix(2048)), ProbeRecord.Kind.captivePortalAPI)] } ?? []
        return (endpoints + api).map { url, kind in
            ProbeRecord(
                url: url, kind: kind, interface: target.interface, startedAt: EndpointProbe.wallClockMilliseconds(), milliseconds: 0,
                outcome: .failure, detail: detail)
        }
    }
}
