import ReachabilityCore
import Testing

private func path(_ status: NetworkPath.Status, expensive: Bool = false) -> NetworkPath {
    NetworkPath(status: status, isExpensive: expensive, ipv4: status != .unreachable,
                primary: status == .unreachable ? nil : InterfaceReference(name: "if0", type: .wired))
}

struct PolicyRow: Sendable, CustomTestStringConvertible {
    var name: String
    var policy: TransferPolicy
    var path: NetworkPath
    var transfer: Transfer
    var expected: TransferDecision
    var testDescription: String { name }
}

private let mb: Int64 = 1_000_000

private let policyRows: [PolicyRow] = [
    PolicyRow(name: "nothing reachable waits for a network", policy: .any, path: path(.unreachable), transfer: Transfer(), expected: .wait(.noNetwork)),
    PolicyRow(name: "any policy allows cellular", policy: .any, path: path(.cellular, expensive: true), transfer: Transfer(), expected: .allow),
    PolicyRow(name: "cellular forbidden", policy: TransferPolicy(allowsCellular: false), path: path(.cellular, expensive: true), transfer: Transfer(), expected: .wait(.cellularNotAllowed)),
    PolicyRow(name: "cellular forbidden allows Wi-Fi", policy: TransferPolicy(allowsCellular: false), path: path(.wifi), transfer: Transfer(), expected: .allow),
    PolicyRow(name: "unmetered refuses a tethered (expensive) wired path", policy: .unmetered, path: path(.wired, expensive: true), transfer: Transfer(), expected: .wait(.expensiveNotAllowed)),
    PolicyRow(name: "unmetered allows cheap Wi-Fi", policy: .unmetered, path: path(.wifi), transfer: Transfer(), expected: .allow),
    PolicyRow(name: "Wi-Fi only refuses wired", policy: .wifiOnly, path: path(.wired), transfer: Transfer(), expected: .wait(.typeNotAllowed(.wired))),
    PolicyRow(name: "wired only allows wired", policy: .wiredOnly, path: path(.wired), transfer: Transfer(), expected: .allow),
    PolicyRow(
        name: "over the cellular size limit waits", policy: TransferPolicy(cellularSizeLimit: 50 * mb), path: path(.cellular, expensive: true),
        transfer: Transfer(expectedBytes: 51 * mb), expected: .wait(.overCellularSizeLimit(limit: 50 * mb))),
    PolicyRow(
        name: "at the cellular size limit runs", policy: TransferPolicy(cellularSizeLimit: 50 * mb), path: path(.cellular, expensive: true),
        transfer: Transfer(expectedBytes: 50 * mb), expected: .allow),
    PolicyRow(
        name: "unknown size is not over a limit", policy: TransferPolicy(cellularSizeLimit: 50 * mb), path: path(.cellular, expensive: true),
        transfer: Transfer(), expected: .allow),
    PolicyRow(
        name: "the cellular limit does not apply to Wi-Fi", policy: TransferPolicy(cellularSizeLimit: 50 * mb), path: path(.wifi),
        transfer: Transfer(expectedBytes: 900 * mb), expected: .allow),
    PolicyRow(
        name: "a user-initiated transfer may exceed the limit", policy: TransferPolicy(cellularSizeLimit: 50 * mb),
        path: path(.cellular, expensive: true), transfer: Transfer(expectedBytes: 900 * mb, priority: .userInitiated), expected: .allow),
    PolicyRow(
        name: "but not a prohibition", policy: TransferPolicy(allowsCellular: false), path: path(.cellular, expensive: true),
        transfer: Transfer(priority: .userInitiated), expected: .wait(.cellularNotAllowed)),
    PolicyRow(
        name: "expensive size limit on a metered Wi-Fi (Android hotspot)", policy: TransferPolicy(expensiveSizeLimit: 10 * mb),
        path: path(.wifi, expensive: true), transfer: Transfer(direction: .upload, expectedBytes: 11 * mb),
        expected: .wait(.overExpensiveSizeLimit(limit: 10 * mb))),
]

@Suite("Transfer policy")
struct TransferPolicyTests {
    @Test(arguments: policyRows)
    func decides(_ row: PolicyRow) {
        #expect(row.policy.decide(row.path, for: row.transfer) == row.expected)
    }

    @Test func reasonsReadWell() {
        #expect(TransferWaitReason.overCellularSizeLimit(limit: 50 * 1_048_576).description == "larger than the cellular limit of 50 MiB")
        #expect(TransferWaitReason.noNetwork.code == "noNetwork")
        #expect(TransferWaitReason.settling(remaining: .milliseconds(1500)).description == "network changed; resuming in 1.5 s")
    }

    @Test(arguments: [
        ("50MB", Int64(50_000_000)), ("50M", 52_428_800), ("1.5GiB", 1_610_612_736), ("700k", 716_800), ("1024", 1024),
        ("2 gb", 2_000_000_000), ("0", 0),
        // Exact to the byte at the top of the range (no trip through Double), fractions rounded.
        ("9223372036854775807", Int64.max), ("9223372036854775807B", Int64.max), ("8388607TiB", 8_388_607 << 40),
        (".5k", 512), ("5.", 5), ("0.5KiB", 512), (" 1 KiB ", 1024), ("1.0000000000000000000001", 1),
    ])
    func parsesSizes(_ text: String, _ bytes: Int64) {
        #expect(ByteCount.parse(text) == bytes)
    }

    @Test(arguments: [
        "", "MB", "-5M", "5 parsecs", "1e9", "1e400", "1E3", "nan", "inf", "-inf", "infinity", "-0", "+5", ".", "..5",
        "1..5", "1.5.5", ". k", "9223372036854775808", "99999999999999999999999", "8388608TiB", "8388607.99999999999999TiB",
        "9007199254740993GiB", "\u{663}", "5\u{301}", "\u{FF15}", "0x10",
    ])
    func rejectsBadSizes(_ text: String) {
        #expect(ByteCount.parse(text) == nil)
    }
}

@Suite("Transfer gate state (hysteresis)")
struct TransferGateStateTests {
    @Test func startsAtOncePausesAtOnceAndResumesOnlyAfterSettling() {
        var state = TransferGateState(policy: TransferPolicy(allowsCellular: false, resumeAfter: .seconds(2)), transfer: Transfer())
        #expect(state.update(path: path(.wifi), now: .zero) == .run)
        #expect(state.update(path: path(.cellular, expensive: true), now: .seconds(10)) == .pause(.cellularNotAllowed))
        #expect(state.update(path: path(.wifi), now: .seconds(11)) == .waitUntil(deadline: .seconds(13), reason: .settling(remaining: .seconds(2))))
        #expect(state.update(path: path(.wifi), now: .milliseconds(12_500)) == .waitUntil(deadline: .seconds(13), reason: .settling(remaining: .milliseconds(500))))
        #expect(state.update(path: path(.wifi), now: .seconds(13)) == .run)
    }

    @Test func aFlapDuringSettlingRestartsTheWait() {
        var state = TransferGateState(policy: TransferPolicy(allowsCellular: false, resumeAfter: .seconds(2)), transfer: Transfer())
        _ = state.update(path: path(.wifi), now: .zero)
        _ = state.update(path: path(.unreachable), now: .seconds(1))
        _ = state.update(path: path(.wifi), now: .seconds(2))
        #expect(state.update(path: path(.cellular, expensive: true), now: .seconds(3)) == .pause(.cellularNotAllowed))
        #expect(state.update(path: path(.wifi), now: .seconds(4)) == .waitUntil(deadline: .seconds(6), reason: .settling(remaining: .seconds(2))))
        #expect(state.update(path: path(.wifi), now: .seconds(6)) == .run)
    }

    @Test func aTransferThatNeverRanStartsWithoutSettling() {
        var state = TransferGateState(policy: .wifiOnly, transfer: Transfer())
        #expect(state.update(path: path(.wired), now: .zero) == .pause(.typeNotAllowed(.wired)))
        // Waiting for a first start is still a wait: once it has been refused, it settles too.
        #expect(state.update(path: path(.wifi), now: .seconds(1)) == .waitUntil(deadline: .seconds(3), reason: .settling(remaining: .seconds(2))))
    }
}
