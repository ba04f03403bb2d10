/// Whether publishing waits for a Wi-Fi station that may be roaming.
///
/// A roam between access points of one SSID looks, to the kernel, like leaving one (a local
/// disconnect, the carrier dropping) and joining the next tens of milliseconds later. Published
/// as it happens, that is an outage the user never had. So when a station that carried traffic
/// stops (its association or its carrier gone) and its access point did not end it, publishing
/// waits until it carries traffic again or ``grace`` passes, whichever comes first. An access
/// point that ends the association (nl80211's `DISCONNECTED_BY_AP`) is published at once.
package struct RoamGrace: Sendable, Hashable {
    /// How long a station that left on its own is given to join again: a roam with WPA2-PSK
    /// takes tens of milliseconds; longer is a real disconnection.
    package static let grace: Int64 = 250_000_000

    /// Stations being waited for.
    package private(set) var stations: Set<Int32> = []
    /// When waiting ends regardless (monotonic nanoseconds).
    package private(set) var deadline: Int64?
    /// Stations that were associated and carried traffic at the last update.
    private var carrying: Set<Int32> = []

    package init() {}

    /// After a batch of events: `carrying` are the stations associated and carrying traffic
    /// now, `endedByAccessPoint` those whose access point ended the association.
    package mutating func update(carrying now: Set<Int32>, endedByAccessPoint: Set<Int32>, at time: Int64) {
        stations.formUnion(carrying.subtracting(now))
        stations.subtract(now)
        stations.subtract(endedByAccessPoint)
        carrying = now
        if stations.isEmpty {
            deadline = nil
        } else if deadline == nil {
            deadline = time + Self.grace
        }
    }

    /// Whether a publish may go out at `now`; past the deadline, waiting ends.
    package mutating func mayPublish(at now: Int64) -> Bool {
        guard let deadline else { return true }
        guard now >= deadline else { return false }
        self.deadline = nil
        stations = []
        return true
    }
}
