import ReachabilityCore
import Testing

/// `InterfaceFacts` keeps its fields in a copy-on-write box; it must still behave as a value.
@Suite("InterfaceFacts value semantics")
struct InterfaceFactsTests {
    @Test func aMutatedCopyLeavesTheOriginalAlone() {
        let original = InterfaceFacts(name: "wlan0", index: 3, kind: nil, macAddress: "aa:bb:cc:dd:ee:ff")
        var copy = original
        copy.name = "wlan1"
        copy.sysfs = SysfsFacts(deviceType: "wlan")
        #expect(original.name == "wlan0" && original.sysfs == nil)
        #expect(copy.name == "wlan1" && copy.sysfs?.deviceType == "wlan")
        #expect(copy != original)
    }

    @Test func equalFactsBuiltApartAreEqualAndHashAlike() {
        let first = InterfaceFacts(name: "eth0", index: 2, flags: [.up], hardwareType: 1, kind: "veth", masterIndex: 5)
        var second = InterfaceFacts(name: "eth0", index: 2, flags: [.up], hardwareType: 1)
        #expect(first != second)
        second.kind = "veth"
        second.masterIndex = 5
        #expect(first == second)
        #expect(Set([first, second]).count == 1)
        var reindexed = second
        reindexed.index = 9
        #expect(reindexed != second)
    }
}
