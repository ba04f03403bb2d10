internal import CNetlink
import Glibc
import ReachabilityCore

/// Asks nl80211 about one interface: `GET_INTERFACE` (mode, SSID, frequency), a `GET_SCAN`
/// dump (the current BSS and its information elements; how many BSSs share its SSID) and a
/// `GET_STATION` dump (signal, link rates). Three round trips, made only when nl80211 or rtnl
/// said something about the interface changed: never on a timer.
final class Nl80211Queries {
    private let socket: Nl80211Socket

    /// Queries over a fresh socket; nil when the kernel has no nl80211.
    init?() {
        guard let socket = Nl80211Socket() else { return nil }
        // A kernel that never answers must not hang the watcher: a receive gives up after 2 s.
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        _ = setsockopt(socket.fileDescriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.socket = socket
    }

    /// What nl80211 says of interface `index` now; nil when it is no Wi-Fi interface (nl80211
    /// answers `ENODEV`) or cannot be read.
    func facts(for index: Int32) -> WifiFacts? {
        guard let interface = request(Nl80211Replies.getInterface, index: index, dump: false).compactMap(Nl80211Replies.interface).first else {
            return nil
        }
        guard interface.mode.isClient else { return WifiFacts(mode: interface.mode) }
        let scan = request(Nl80211Replies.getScan, index: index, dump: true).compactMap(Nl80211Replies.scanEntry)
        guard scan.contains(where: \.isCurrent) else { return WifiFacts(mode: interface.mode) }
        let station = request(Nl80211Replies.getStation, index: index, dump: true).compactMap(Nl80211Replies.station).first
        return Nl80211Replies.facts(interface: interface, scan: scan, station: station)
    }

    /// Collects a request's answers until its ACK, DONE or error.
    private final class Collector {
        var messages: [NetlinkAttributes] = []
        var done = false
    }

    /// Sends `command` about `index` and returns the attributes of every answer (none on error).
    private func request(_ command: UInt8, index: Int32, dump: Bool) -> [NetlinkAttributes] {
        guard let message = nlmsg_alloc() else { return [] }
        defer { nlmsg_free(message) }
        guard genlmsg_put(message, UInt32(NL_AUTO_PORT), UInt32(NL_AUTO_SEQ), socket.family, 0, dump ? Int32(reach_nlm_f_dump) : 0, command, 0) != nil,
              nla_put_u32(message, Int32(NL80211_ATTR_IFINDEX.rawValue), UInt32(bitPattern: index)) == 0,
              nl_send_auto(socket.handle, message) >= 0,
              let callbacks = nl_cb_alloc(NL_CB_DEFAULT)
        else { return [] }
        defer { nl_cb_put(callbacks) }
        let collector = Collector()
        let context = Unmanaged.passUnretained(collector).toOpaque()
        nl_cb_set(callbacks, NL_CB_VALID, NL_CB_CUSTOM, { message, context in
            let collector = Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue()
            // Bounded: a dump of a crowded scan table is a few hundred BSSs.
            if let message, collector.messages.count < 4_096, let body = Nl80211Socket.body(message) { collector.messages.append(body.attributes) }
            return Int32(NL_OK.rawValue)
        }, context)
        let finish: nl_recvmsg_msg_cb_t = { _, context in
            Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue().done = true
            return Int32(NL_STOP.rawValue)
        }
        nl_cb_set(callbacks, NL_CB_FINISH, NL_CB_CUSTOM, finish, context)
        nl_cb_set(callbacks, NL_CB_ACK, NL_CB_CUSTOM, finish, context)
        nl_cb_err(callbacks, NL_CB_CUSTOM, { _, _, context in
            let collector = Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue()
            collector.done = true
            collector.messages = []
            return Int32(NL_STOP.rawValue)
        }, context)
        // Each round reads one datagram or more; a dump of many BSSs takes several.
        for _ in 0..<1_024 where !collector.done {
            if nl_recvmsgs(socket.handle, callbacks) < 0 { return collector.done ? collector.messages : [] }
        }
        return collector.done ? collector.messages : []
    }
}
