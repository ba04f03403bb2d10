import ReachabilityCore

/// libFuzzer entry point for the budget ledger as a state machine: the input is a program of
/// steps (define, sample, tick, reset, snooze, remove) over three interfaces and a wall clock
/// that jumps anywhere (1970 included). Whatever the steps, no count is negative, a cycle's
/// window is ordered and, once the clock is trusted and ticked, contains it; a sample never
/// lowers a count.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBudgetLedger(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var bytes = UnsafeBufferPointer(start: data, count: size)[...]
    func next() -> UInt8? { bytes.popFirst() }
    func number() -> Int64 {
        var value: Int64 = 0
        for _ in 0..<8 { value = value << 8 | Int64(next() ?? 0) }
        return value
    }
    // A zone between UTC-12 and UTC+14 in quarter hours, as real ones are (DST aside).
    let offset = (Int64(next() ?? 0) % 105 - 48) * 900
    var ledger = BudgetLedger(utcOffset: { _ in offset })
    let interfaces = [
        Interface(name: "wwan0", index: 2, type: .cellular, isExpensive: true, isUp: true, isRunning: true),
        Interface(name: "wlan0", index: 3, type: .wifi, isExpensive: false, isUp: true, isRunning: true),
        Interface(name: "usb0", index: 4, type: .wired, isExpensive: true, isUp: true, isRunning: true),
    ]
    let selectors = ["cellular", "wifi", "expensive", "iface:w*", "wired"]
    let cycles = ["monthly:1", "monthly:31", "weekly:mon", "daily", "none"]
    var clock: Int64 = 1_795_000_000
    while let op = next() {
        switch op % 7 {
        case 0:
            let name = "b\(Int(next() ?? 0) % 4)"
            let limit = max(1, number() & 0xFFFF_FFFF)
            guard let budget = try? DataBudget(
                name: name, selector: BudgetSelector(parsing: selectors[Int(next() ?? 0) % selectors.count]), limitBytes: limit,
                warningBytes: limit / 2, cycle: BudgetCycle(parsing: cycles[Int(next() ?? 0) % cycles.count]), reserveBytes: limit / 4)
            else { preconditionFailure("a valid budget was refused") }
            _ = ledger.define(budget, now: clock)
        case 1:
            let before = ledger.accounts.mapValues(\.usedBytes)
            let chosen = interfaces[Int(next() ?? 0) % interfaces.count]
            let sample = InterfaceCounters(
                index: chosen.index, name: chosen.name, receivedBytes: UInt64(bitPattern: number()), sentBytes: UInt64(bitPattern: number()),
                isRemoved: (next() ?? 0) & 1 == 1)
            _ = ledger.record([sample], interfaces: (next() ?? 0) & 1 == 1 ? interfaces : [], now: clock)
            for (name, used) in before { precondition((ledger.accounts[name]?.usedBytes ?? .max) >= used, "a sample lowered a count") }
        case 2:
            clock = number() % 8_000_000_000
            _ = ledger.tick(now: clock)
            if clock >= BudgetLedger.clockFloor {
                for account in ledger.accounts.values {
                    // A clock gone back leaves the window where it was (the count is kept); one
                    // past the end always starts the cycle that holds it.
                    if let end = account.cycleEnd { precondition(clock < end, "a cycle the clock has passed did not end") }
                }
            }
        case 3: _ = ledger.reset("b\(Int(next() ?? 0) % 4)", now: clock)
        case 4: _ = ledger.snooze("b\(Int(next() ?? 0) % 4)")
        case 5: _ = ledger.remove("b\(Int(next() ?? 0) % 4)")
        default:
            for interface in interfaces {
                for allowance in ledger.allowances(for: interface) {
                    _ = allowance.left(for: .background)
                    _ = allowance.left(for: .userInitiated)
                }
            }
        }
        for account in ledger.accounts.values {
            precondition(account.usedBytes >= 0 && account.untrustedBytes >= 0, "a negative count")
            if let end = account.cycleEnd { precondition(account.cycleStart < end, "an empty window") }
        }
    }
    return 0
}
