internal import CNetlink
import Glibc

/// An owned libnl `nl_sock`, connected to `NETLINK_ROUTE`. Not thread-safe: used by one thread.
final class NetlinkSocket {
    let handle: OpaquePointer

    init(operation: String = "connect") throws(NetlinkError) {
        guard let handle = NetlinkSocket.allocate() else { throw NetlinkError("allocate socket", libnl: NLE_NOMEM) }
        let result = nl_connect(handle, NETLINK_ROUTE)
        guard result == 0 else {
            nl_socket_free(handle)
            throw NetlinkError(operation, libnl: result)
        }
        self.handle = handle
    }

    deinit { nl_socket_free(handle) }

    /// Receive buffer for one datagram. The kernel sizes dump datagrams by the reader's buffer
    /// (at most 64 KiB), so with this size libnl can read each datagram once, without first
    /// peeking at its size (which doubles the system calls per message).
    static let datagramBufferBytes = 64 << 10

    /// An unconnected libnl socket that reads each datagram once.
    static func allocate() -> OpaquePointer? {
        guard let handle = nl_socket_alloc() else { return nil }
        nl_socket_disable_msg_peek(handle)
        _ = nl_socket_set_msg_buf_size(handle, datagramBufferBytes)
        return handle
    }

    var fileDescriptor: Int32 { nl_socket_get_fd(handle) }

    /// Sets a custom handler for valid messages, dispatching to `target`.
    func onValidMessage(_ callback: nl_recvmsg_msg_cb_t, target: AnyObject) {
        nl_socket_modify_cb(handle, NL_CB_VALID, NL_CB_CUSTOM, callback, Unmanaged.passUnretained(target).toOpaque())
    }
}

enum SocketOptions {
    /// Raises a socket's receive buffer to `bytes`, past `rmem_max` when privileged
    /// (`SO_RCVBUFFORCE`). Returns the size the kernel actually granted.
    @discardableResult
    static func setReceiveBuffer(fileDescriptor fd: Int32, bytes: Int) -> Int {
        var requested = Int32(bytes)
        let size = socklen_t(MemoryLayout<Int32>.size)
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &requested, size) != 0 {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &requested, size)
        }
        return receiveBuffer(fileDescriptor: fd)
    }

    static func receiveBuffer(fileDescriptor fd: Int32) -> Int {
        var granted: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &granted, &length)
        return Int(granted)
    }

    /// Asks the kernel to check dump requests strictly and leave out route-cache clones.
    static func enableStrictChecking(fileDescriptor fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(reach_sol_netlink), Int32(reach_netlink_get_strict_chk), &on, socklen_t(MemoryLayout<Int32>.size))
    }
}
