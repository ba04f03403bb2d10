import ReachabilitySystemd
import Testing

/// Which `NOTIFY_SOCKET` values make a notifier: absolute paths and `@abstract` names that fit
/// `sun_path` (107 bytes and its NUL), as sd_notify(3)'s reference implementation accepts.
@Suite struct NotifySocketAddressTests {
    @Test(arguments: ["/run/systemd/notify", "@/org/freedesktop/systemd1/notify/123", "/" + String(repeating: "a", count: 106)])
    func validAddresses(_ path: String) {
        #expect(SystemdNotifier(socketPath: path)?.socketPath == path)
    }

    @Test(arguments: [
        "", "/", "@", "run/systemd/notify", "./notify", "vsock:2:1234", "/" + String(repeating: "a", count: 107),
        "@" + String(repeating: "a", count: 107), "/with\u{0}nul",
    ])
    func invalidAddresses(_ path: String) {
        #expect(SystemdNotifier(socketPath: path) == nil)
    }
}
