/// Whether publishing waits for a Wi-Fi station that may be roaming.
///
/// A roam between access points of one SSID looks, to the kernel, like leaving one (a local
/// disconnect, the carrier dropping) and joining the next tens of milliseconds later. Published
/// as it happens, that is an outage the user never had. So when a station that carried traffic
/// stops (its association or its carrier gone), publishing waits until it carries traffic again,
/// or nl80211 says the association ended for good, or ``grace`` passes without the station
/// making progress, whichever comes first. Progress is nl80211's word that the station
/// authenticated or associated with an access point: each such event gives it ``grace`` more,
/// up to ``longestHold`` in all, so a slow roam (802.1X without fast transition takes hundreds
/// of milliseconds) is held for as long as it advances, and a station that went quiet is
/// published after ``grace``.
/// Ended for good: the access point ended it (`DISCONNECTED_BY_AP`), or the station chose to
/// leave (reason 3, `wpa_cli disconnect`). A roam's disconnect carries neither: mac80211 leaves
/// the old access point with reason 1 when it authenticates with the next one.
package struct RoamGrace: Sendable, Hashable {
    /// How long a station that left on its own is given to join again. A roam with WPA2-PSK
    /// takes tens of milliseconds on hardware, but hundreds with 802.1X and no fast transition,
    /// and an emulated roam under load once outlasted the 250 ms this was before. A station
    /// gone for longer is a real disconnection; NetworkManager waits 15 s for that.
    package static let grace: Int64 = 1_000_000_000
    /// The longest a station that keeps making progress is held: a roam that takes longer is an
    /// outage worth telling.
    package static let longestHold: Int64 = 5_000_000_000

    /// Stations being waited for.
    package private(set) var stations: Set<Int32> = []
    /// When waiting ends regardless (monotonic nanoseconds).
    package private(set) var deadline: Int64?
    /// Stations that were associated and carried traffic at the last update.
    private var carrying: Set<Int32> = []
    /// When the current wait began.
    private var waitBegan: Int64?

    package init() {}

    /// After a batch of events: `carrying` are the stations associated and carrying traffic
    /// now, `endedForGood` those whose association nl80211 says ended for good, `progressing`
    /// those nl80211 says authenticated or associated since the last batch.
    package mutating func update(carrying now: Set<Int32>, endedForGood: Set<Int32>, progressing: Set<Int32> = [], at time: Int64) {
        stations.formUnion(carrying.subtracting(now))
        stations.subtract(now)
        stations.subtract(endedForGood)
        carrying = now
        guard !stations.isEmpty else {
            deadline = nil
            waitBegan = nil
            return
        }
        guard let deadline, let waitBegan else {
            waitBegan = time
            deadline = time + Self.grace
            return
        }
        if !stations.isDisjoint(with: progressing) {
            self.deadline = min(waitBegan + Self.longestHold, max(deadline, time + Self.grace))
        }
    }

    /// Whether a publish may go out at `now`; past the deadline, waiting ends.
    package mutating func mayPublish(at now: Int64) -> Bool {
        guard let deadline else { return true }
        guard now >= deadline else { return false }
        self.deadline = nil
        waitBegan = nil
        stations = []
        return true
    }
}
