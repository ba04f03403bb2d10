import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOHTTP1
import ReachabilityCore

/// Redirects for requests that carry credentials async-http-client does not know to drop.
///
/// The client follows redirects itself and, to another origin, drops `Authorization`,
/// `Proxy-Authorization` and `Cookie` — but not `X-Api-Key`, `PRIVATE-TOKEN` or any other
/// field that carries a secret by name (``TransferURL/isCredentialHeader(_:)``): a server that
/// redirected to another host got them. A request with such a field is therefore sent on a
/// client that follows nothing (``HTTPClients/lease(for:uplink:followsRedirects:)``), and its
/// redirects are followed here: at most 10, no cycle, every credential field dropped as soon
/// as the origin changes, `303` turning a request into `GET` as the client would.
enum CredentialRedirects {
    static let maxRedirects = 10

    /// Whether `names` include a credential the client would carry to another origin.
    static func needsOwnFollowing(_ names: some Sequence<String>) -> Bool {
        names.contains { name in
            let lowered = name.lowercased()
            return TransferURL.isCredentialHeader(lowered) && !["authorization", "proxy-authorization", "cookie"].contains(lowered)
        }
    }

    /// `request` sent on `client`; its redirects followed here when it needs that (then the
    /// client must be one that follows none), else by the client.
    static func execute(_ request: HTTPClientRequest, on client: HTTPClient, timeout: TimeAmount) async throws -> HTTPClientResponse {
        guard needsOwnFollowing(request.headers.map(\.name)) else { return try await client.execute(request, timeout: timeout) }
        var current = request
        var visited: Set<String> = [request.url]
        for _ in 0...maxRedirects {
            let response = try await client.execute(current, timeout: timeout)
            guard [301, 302, 303, 307, 308].contains(Int(response.status.code)), let location = response.headers.first(name: "location"),
                let base = URL(string: current.url), let target = URL(string: location, relativeTo: base)?.absoluteURL,
                let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else { return response }
            _ = try? await response.body.collect(upTo: 1 << 16)
            let next = target.absoluteString
            guard visited.insert(next).inserted else { throw HTTPClientError.redirectCycleDetected }
            if origin(of: base) != origin(of: target) {
                for name in Set(current.headers.map(\.name)) where TransferURL.isCredentialHeader(name) || name.lowercased() == "origin" {
                    current.headers.remove(name: name)
                }
            }
            if response.status == .seeOther && current.method != .HEAD {
                current.method = .GET
                current.body = nil
                current.headers.remove(name: "content-length")
                current.headers.remove(name: "content-type")
            }
            current.url = next
        }
        throw HTTPClientError.redirectLimitReached
    }

    private static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
