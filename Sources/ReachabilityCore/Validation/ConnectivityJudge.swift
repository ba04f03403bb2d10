/// Turns one round of probe records on one uplink into its ``Connectivity``, in Android's order
/// (NetworkMonitor), the first rule that applies deciding:
///
/// 1. The RFC 8908 API (``ProbeRecord/Kind/captivePortalAPI``) says captive: ``Connectivity/portal``.
///    The network itself says so, whatever the probes found.
/// 2. A probe answered like a portal (a redirect, a 511, a page where the answer belongs):
///    ``Connectivity/portal``.
/// 3. An HTTPS probe succeeded: ``Connectivity/full``. A portal cannot fake a verified answer.
/// 4. An HTTP probe succeeded: ``Connectivity/partial`` when HTTPS probes were sent and all
///    failed (HTTPS blocked or intercepted), ``Connectivity/full`` when none were.
/// 5. Otherwise (every probe failed, or there were none): ``Connectivity/limited``.
///
/// The API saying "not captive" proves nothing by itself: it is answered by the local network,
/// so it makes nothing ``Connectivity/full``. The portal's URL is the first one named, the
/// API's before the probes'.
public enum ConnectivityJudge {
    /// The connectivity `records` show, and the portal's URL when it is ``Connectivity/portal``.
    public static func judge(_ records: [ProbeRecord]) -> (connectivity: Connectivity, portalURL: String?) {
        let api = records.filter { $0.kind == .captivePortalAPI }
        let probes = records.filter { $0.kind != .captivePortalAPI }
        let apiPortals = api.filter { $0.outcome == .portal }
        let probePortals = probes.filter { $0.outcome == .portal }
        if !apiPortals.isEmpty || !probePortals.isEmpty {
            let url = (apiPortals + probePortals).lazy.compactMap(\.portalURL).first
            return (.portal, url)
        }
        let https = probes.filter { $0.kind == .https }
        if https.contains(where: { $0.outcome == .success }) { return (.full, nil) }
        if probes.contains(where: { $0.kind == .http && $0.outcome == .success }) {
            return (https.isEmpty ? .full : .partial, nil)
        }
        return (.limited, nil)
    }
}

extension InterfaceValidation {
    /// The validation `records` show, as ``ConnectivityJudge/judge(_:)`` reads them.
    public init(judging records: [ProbeRecord]) {
        let (connectivity, portalURL) = ConnectivityJudge.judge(records)
        self.init(connectivity: connectivity, portalURL: portalURL, probes: records)
    }
}
