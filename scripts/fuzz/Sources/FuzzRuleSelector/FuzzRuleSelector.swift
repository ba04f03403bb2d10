import ReachabilityCore

/// Facts that every kind of selector can test, so that `matches` runs its whole switch.
private let sampleFacts = InterfaceFacts(
    name: "wlan0", index: 3, macAddress: "AA:BB:cc:dd:ee:ff",
    sysfs: SysfsFacts(driver: "r8152", bus: "usb", usbVendorID: "12d1", usbProductID: "1506"),
    dhcpHints: DHCPHints(androidMetered: true, leaseFile: "fuzz.lease"))

/// libFuzzer entry point for override rules: the input is one `--override` value; its part
/// before the first `=` (all of it when there is none) is also parsed as a bare selector.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRuleSelector(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let selectorText = String(text.prefix { $0 != "=" })
    if case .success(let selector) = RuleSelector.parse(selectorText) {
        _ = selector.matches(sampleFacts)
        _ = selector.description
        _ = selector.nameGlob?.matches(sampleFacts.name)
    }
    do {
        let rule = try OverrideRule(parsing: text, origin: "fuzz")
        precondition(rule.type != nil || rule.isExpensive != nil, "a rule sets a type or a cost")
        _ = rule.matches(sampleFacts)
        _ = rule.description
    } catch {
        _ = error.description
    }
    return 0
}
