import ReachabilityCore

/// libFuzzer entry point for a data budget's text: the input is a `budget NAME = …` value
/// (selector, `limit=`, `warning=`, `cycle=`, `reserve=`), and also a selector, a cycle and a size
/// on their own.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBudget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let budget = try? DataBudget(name: "fuzz", configuration: text) {
        precondition(budget.limitBytes >= 1 && budget.limitBytes <= DataBudget.maxBytes, "limit out of range")
        precondition(budget.reserveBytes >= 0 && budget.reserveBytes < budget.limitBytes, "reserve out of range")
        precondition(budget.warningBytes.map { $0 >= 0 && $0 <= budget.limitBytes } ?? true, "warning out of range")
        // What is printed parses back to the same.
        precondition((try? BudgetSelector(parsing: budget.selector.description)) == budget.selector, "selector round trip")
        precondition((try? BudgetCycle(parsing: budget.cycle.description)) == budget.cycle, "cycle round trip")
    }
    if let selector = try? BudgetSelector(parsing: text) { precondition(selector.description == text, "selector text") }
    if let cycle = try? BudgetCycle(parsing: text) {
        // Every window contains its instant and is at least a day, at most 31 days plus an hour.
        for now: Int64 in [-86_400 * 400, 0, 1_767_225_600, 4_102_444_800] {
            guard let window = cycle.window(containing: now, utcOffset: { _ in 3600 }) else { continue }
            precondition(window.start <= now && now < window.end, "window does not contain its instant")
            precondition(window.end - window.start >= 86_400 - 3600 && window.end - window.start <= 31 * 86_400 + 3600, "window length")
        }
    }
    if let bytes = try? DataBudget.bytes(text, field: "limit") { precondition(bytes >= 0 && bytes <= DataBudget.maxBytes, "size range") }
    return 0
}
