internal import CNetlink
import Glibc
import ReachabilityCore

/// nl80211's multicast events (`mlme`: connect, roam, disconnect, (dis)association; `scan`:
/// new results; `config`: interfaces added, changed, removed), reduced to "interface N may have
/// changed". Owned by the watcher's thread, which polls ``fileDescriptor``.
final class Nl80211Events {
    private let socket: Nl80211Socket
    private var changed: Set<Int32> = []
    /// Stations whose association ended for good: by the access point (`DISCONNECTED_BY_AP`),
    /// or because the station chose to leave (reason 3).
    private var endedForGood: Set<Int32> = []
    /// Interfaces with new scan results.
    private var scanned: Set<Int32> = []
    /// Stations that authenticated or associated (not timed out): a roam in progress.
    private var progressing: Set<Int32> = []
    /// The socket overflowed: some event was lost, so every Wi-Fi interface must be re-read.
    private var overflowed = false

    /// Commands after which an interface's facts are read again. cfg80211 sends CONNECT, ROAM
    /// and DISCONNECT whoever runs the authentication (the kernel, wpa_supplicant, iwd), so the
    /// finer AUTHENTICATE/ASSOCIATE/DEAUTHENTICATE events that surround them add nothing.
    static let relevantCommands: Set<UInt8> = [
        Nl80211Replies.newInterface, Nl80211Replies.setInterface, Nl80211Replies.deleteInterface,
        UInt8(NL80211_CMD_CONNECT.rawValue), UInt8(NL80211_CMD_ROAM.rawValue), UInt8(NL80211_CMD_DISCONNECT.rawValue),
        UInt8(NL80211_CMD_CH_SWITCH_NOTIFY.rawValue),
    ]
    /// New scan results matter only to an associated station (its access point's elements may
    /// have changed); a station looking for a network scans often and has nothing to report.
    static let scanResults = Nl80211Replies.newScanResults
    /// A station's authentication or association with an access point completed (these carry
    /// `NL80211_ATTR_TIMED_OUT` when it did not): a roam advancing, which holds publishing
    /// (``RoamGrace``), though the interface's facts are read only once it connects.
    static let progressCommands: Set<UInt8> = [UInt8(NL80211_CMD_AUTHENTICATE.rawValue), UInt8(NL80211_CMD_ASSOCIATE.rawValue)]
    /// `WLAN_REASON_DEAUTH_LEAVING`: the station itself chose to leave (`wpa_cli disconnect`,
    /// NetworkManager's disconnect), so no roam follows.
    static let reasonLeaving: UInt64 = 3

    /// Subscribed to the groups above; nil when the kernel has no nl80211.
    init?(receiveBufferBytes: Int) {
        guard let socket = Nl80211Socket() else { return nil }
        nl_socket_disable_seq_check(socket.handle)
        for group in ["mlme", "scan", "config"] {
            guard let id = socket.groupID(group), nl_socket_add_membership(socket.handle, id) == 0 else { return nil }
        }
        _ = nl_socket_set_nonblocking(socket.handle)
        SocketOptions.setReceiveBuffer(fileDescriptor: socket.fileDescriptor, bytes: receiveBufferBytes)
        self.socket = socket
        nl_socket_modify_cb(socket.handle, NL_CB_VALID, NL_CB_CUSTOM, { message, context in
            guard let message, let context, let body = Nl80211Socket.body(message) else { return Int32(NL_OK.rawValue) }
            let events = Unmanaged<Nl80211Events>.fromOpaque(context).takeUnretainedValue()
            guard let index = Nl80211Replies.interfaceIndex(body.attributes) else { return Int32(NL_OK.rawValue) }
            if body.command == Nl80211Events.scanResults { events.scanned.insert(index) }
            if Nl80211Events.progressCommands.contains(body.command), body.attributes[UInt16(NL80211_ATTR_TIMED_OUT.rawValue)] == nil {
                events.progressing.insert(index)
            }
            guard Nl80211Events.relevantCommands.contains(body.command) else { return Int32(NL_OK.rawValue) }
            events.changed.insert(index)
            if body.command == UInt8(NL80211_CMD_DISCONNECT.rawValue) {
                let byAccessPoint = body.attributes[UInt16(NL80211_ATTR_DISCONNECTED_BY_AP.rawValue)] != nil
                let leaving = body.attributes.unsigned(UInt16(NL80211_ATTR_REASON_CODE.rawValue)) == Nl80211Events.reasonLeaving
                if byAccessPoint || leaving { events.endedForGood.insert(index) }
            }
            return Int32(NL_OK.rawValue)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    var fileDescriptor: Int32 { socket.fileDescriptor }

    /// Reads every queued event. Returns the interfaces to re-read, those with new scan results,
    /// those whose association ended for good, those that authenticated or associated, and
    /// whether events were lost.
    func receive() -> (indices: Set<Int32>, scanned: Set<Int32>, endedForGood: Set<Int32>, progressing: Set<Int32>, overflowed: Bool) {
        for _ in 0..<10_000 {
            let result = nl_recvmsgs_default(socket.handle)
            if result == -NLE_NOMEM {
                overflowed = true
                continue
            }
            if result <= 0 { break }
        }
        defer {
            changed.removeAll(keepingCapacity: true)
            endedForGood.removeAll(keepingCapacity: true)
            scanned.removeAll(keepingCapacity: true)
            progressing.removeAll(keepingCapacity: true)
            overflowed = false
        }
        return (changed, scanned, endedForGood, progressing, overflowed)
    }
}
