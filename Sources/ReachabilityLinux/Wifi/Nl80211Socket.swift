internal import CNetlink
import Glibc
import ReachabilityCore

/// A generic-netlink socket speaking nl80211, resolved once. Not thread-safe: the thread that
/// made it uses it (the watcher's owner thread, or a one-shot snapshot's).
final class Nl80211Socket {
    let handle: OpaquePointer
    /// nl80211's generic-netlink family id.
    let family: Int32

    /// A socket with nl80211's family resolved; nil when the kernel has no nl80211 (no cfg80211:
    /// no Wi-Fi to report) or no generic-netlink socket can be made.
    init?() {
        guard let handle = NetlinkSocket.allocate() else { return nil }
        guard genl_connect(handle) == 0 else {
            nl_socket_free(handle)
            return nil
        }
        let family = genl_ctrl_resolve(handle, NL80211_GENL_NAME)
        guard family > 0 else {
            nl_socket_free(handle)
            return nil
        }
        self.handle = handle
        self.family = family
    }

    deinit { nl_socket_free(handle) }

    var fileDescriptor: Int32 { nl_socket_get_fd(handle) }

    /// The id of nl80211's multicast group `name` (`mlme`, `scan`, `config`).
    func groupID(_ name: String) -> Int32? {
        let id = genl_ctrl_resolve_grp(handle, NL80211_GENL_NAME, name)
        return id >= 0 ? id : nil
    }

    /// A received message's command and attributes, copied out of libnl's buffer.
    static func body(_ message: OpaquePointer) -> (command: UInt8, attributes: NetlinkAttributes)? {
        var command: UInt8 = 0
        var data: UnsafeRawPointer?
        var length: Int32 = 0
        guard reach_genl_body(message, &command, &data, &length) == 0, let data, length >= 0 else { return nil }
        return (command, NetlinkAttributes(UnsafeRawBufferPointer(start: data, count: Int(length))))
    }
}
