import CNetlink
import ReachabilityLinux

/// libFuzzer entry point for the netlink route and rule parsers: the input is one raw netlink
/// message, native endianness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRouteMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let headerSize = MemoryLayout<nlmsghdr>.size
    guard let data, size >= headerSize else { return 0 }
    // An aligned copy of exactly `size` bytes, so that AddressSanitizer flags any read past it.
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<nlmsghdr>.alignment)
    defer { buffer.deallocate() }
    buffer.copyMemory(from: data, byteCount: size)
    let header = buffer.bindMemory(to: nlmsghdr.self, capacity: 1)
    // libnl hands the parsers only messages whose length fits what was received (nlmsg_ok):
    // keep a length that does, otherwise the message runs to the end of the input.
    if header.pointee.nlmsg_len < headerSize || header.pointee.nlmsg_len > size {
        header.pointee.nlmsg_len = UInt32(size)
    }
    if let route = RouteMessage(header) {
        var text = route.preferredSource ?? ""
        for hop in route.nextHops { text += hop.gateway ?? "" }
        precondition(text.utf8.count <= 64 * (route.nextHops.count + 1), "address text too long")
        _ = (route.isDefault, route.isClone, route.metric, route.table)
    }
    _ = RouteQueries.ruleMark(header)
    return 0
}
