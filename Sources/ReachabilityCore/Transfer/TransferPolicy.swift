/// A transfer the policy decides about.
public struct Transfer: Sendable, Hashable {
    /// Which way the bytes move. The policy decides alike for both; the direction travels with
    /// the transfer for whoever reports on it.
    public enum Direction: String, Sendable, Hashable, Codable { case download, upload }

    /// `userInitiated` transfers (someone is waiting for them) may exceed the size limits, as
    /// an explicit tap on "download now over cellular" does on a phone; `background` ones may not.
    public enum Priority: String, Sendable, Hashable, Codable { case background, normal, userInitiated }

    /// A download or an upload.
    public var direction: Direction
    /// The bytes still to move, if known (drives the size limits).
    public var expectedBytes: Int64?
    /// How urgent the transfer is; only ``Priority-swift.enum/userInitiated`` lifts the size limits.
    public var priority: Priority
    /// Bytes this transfer already moved over cellular paths: the cellular size limit is a
    /// budget for the whole transfer, so pauses and resumes cannot add up past it.
    public var movedOnCellular: Int64
    /// Bytes this transfer already moved over expensive (metered) paths.
    public var movedOnExpensive: Int64

    /// A transfer of `expectedBytes` (nil: unknown) that has moved nothing on cellular or expensive
    /// paths yet, unless told otherwise.
    public init(
        direction: Direction = .download, expectedBytes: Int64? = nil, priority: Priority = .normal, movedOnCellular: Int64 = 0,
        movedOnExpensive: Int64 = 0
    ) {
        self.direction = direction
        self.expectedBytes = expectedBytes
        self.priority = priority
        self.movedOnCellular = movedOnCellular
        self.movedOnExpensive = movedOnExpensive
    }
}

/// Why a transfer may not run on the current path; modelled on Android DownloadManager's
/// paused reasons and `NWPath.unsatisfiedReason`.
public enum TransferWaitReason: Sendable, Hashable, CustomStringConvertible {
    /// Nothing is reachable.
    case noNetwork
    /// The path is cellular and the policy forbids cellular.
    case cellularNotAllowed
    /// The path is expensive (metered) and the policy forbids expensive paths.
    case expensiveNotAllowed
    /// The path's type is not among the allowed ones.
    case typeNotAllowed(NetworkPath.Status)
    /// The transfer is larger than the limit for cellular paths.
    case overCellularSizeLimit(limit: Int64)
    /// The transfer is larger than the limit for expensive paths.
    case overExpensiveSizeLimit(limit: Int64)
    /// The path allows it again, but has not done so for long enough yet (hysteresis).
    case settling(remaining: Duration)
    /// Validation found that the network does not reach the Internet (`limited`, or `partial`:
    /// HTTPS blocked).
    case noInternet
    /// A captive portal holds the network: log in at the URL (when the portal named one).
    case captivePortal(url: String?)
    /// Probing is on and the network's first round of probes has not answered yet.
    case checkingInternet
    /// What is left of a data budget counting this network (less its reserve, for a transfer
    /// that is not user-initiated) does not cover the transfer; `cycleEnd` (seconds since
    /// 1970) is when the budget starts over, nil for one without cycles.
    case overBudget(name: String, cycleEnd: Int64?)

    public var description: String {
        switch self {
        case .noNetwork: "waiting for a network"
        case .cellularNotAllowed: "cellular not allowed"
        case .expensiveNotAllowed: "expensive (metered) network not allowed"
        case .typeNotAllowed(let status): "\(status) not allowed"
        case .overCellularSizeLimit(let limit): "larger than the cellular limit of \(ByteCount.text(limit))"
        case .overExpensiveSizeLimit(let limit): "larger than the metered-network limit of \(ByteCount.text(limit))"
        case .settling(let remaining): "network changed; resuming in \(ByteCount.seconds(remaining))"
        case .noInternet: "network has no Internet access"
        case .captivePortal(let url): "captive portal" + (url.map { ": log in at \($0)" } ?? "")
        case .checkingInternet: "checking Internet access"
        case .overBudget(let name, let end):
            "over the data budget '\(name)'" + (end.flatMap(RFC3339Time.utcText).map { "; it starts over at \($0)" } ?? "")
        }
    }

    /// A short stable token for JSON output: `noNetwork`, `cellularNotAllowed`, …
    public var code: String {
        switch self {
        case .noNetwork: "noNetwork"
        case .cellularNotAllowed: "cellularNotAllowed"
        case .expensiveNotAllowed: "expensiveNotAllowed"
        case .typeNotAllowed: "typeNotAllowed"
        case .overCellularSizeLimit: "overCellularSizeLimit"
        case .overExpensiveSizeLimit: "overExpensiveSizeLimit"
        case .settling: "settling"
        case .noInternet: "noInternet"
        case .captivePortal: "captivePortal"
        case .checkingInternet: "checkingInternet"
        case .overBudget: "overBudget"
        }
    }
}

/// The policy's answer for one path and transfer.
public enum TransferDecision: Sendable, Hashable {
    /// The transfer may run on this path now.
    case allow
    /// The transfer must not run on this path; the reason says what it waits for.
    case wait(TransferWaitReason)

    /// Whether the decision is ``allow``.
    public var isAllowed: Bool { self == .allow }
}

/// Rules that gate transfers by network: "no downloads over 50 MB on cellular", "only on
/// unmetered networks", "Wi-Fi or wired only". A pure function of a path and a transfer.
public struct TransferPolicy: Sendable, Hashable {
    /// Path types a transfer may use (`unreachable` is never allowed).
    public var allowedStatuses: Set<NetworkPath.Status>
    /// Whether cellular paths may be used at all (a USB-tethered phone is wired and expensive, not cellular).
    public var allowsCellular: Bool
    /// Whether expensive (metered) paths may be used at all: cellular, a tethered phone, a user rule.
    public var allowsExpensive: Bool
    /// Transfers larger than this wait for a non-cellular path (unless user-initiated).
    public var cellularSizeLimit: Int64?
    /// Transfers larger than this wait for an inexpensive path (unless user-initiated).
    public var expensiveSizeLimit: Int64?
    /// After a pause, how long the path must keep allowing before the transfer resumes, so a
    /// Wi-Fi roam or a flapping link does not start and stop it repeatedly. Pausing is immediate.
    public var resumeAfter: Duration
    /// When the network is being validated, wait unless it is `full`: behind a portal
    /// (``TransferWaitReason/captivePortal(url:)``), without the Internet
    /// (``TransferWaitReason/noInternet``), or until the first probes answer
    /// (``TransferWaitReason/checkingInternet``). Without probing this never waits.
    public var requiresInternet: Bool

    /// A policy; by default every reachable path is allowed, without size limits, a paused
    /// transfer resumes after the path has allowed it for 2 seconds, and a network that
    /// validation found without the Internet waits.
    public init(
        allowedStatuses: Set<NetworkPath.Status> = [.wifi, .cellular, .wired, .other], allowsCellular: Bool = true,
        allowsExpensive: Bool = true, cellularSizeLimit: Int64? = nil, expensiveSizeLimit: Int64? = nil,
        resumeAfter: Duration = .seconds(2), requiresInternet: Bool = true
    ) {
        self.allowedStatuses = allowedStatuses
        self.allowsCellular = allowsCellular
        self.allowsExpensive = allowsExpensive
        self.cellularSizeLimit = cellularSizeLimit
        self.expensiveSizeLimit = expensiveSizeLimit
        self.resumeAfter = resumeAfter
        self.requiresInternet = requiresInternet
    }

    /// Anything reachable.
    public static let any = TransferPolicy()
    /// Only paths that are not expensive.
    public static let unmetered = TransferPolicy(allowsExpensive: false)
    /// Only Wi-Fi paths, metered or not (a phone's hotspot is Wi-Fi: add `allowsExpensive: false`
    /// to exclude it).
    public static let wifiOnly = TransferPolicy(allowedStatuses: [.wifi])
    /// Only wired paths, metered or not (a USB-tethered phone is wired and expensive).
    public static let wiredOnly = TransferPolicy(allowedStatuses: [.wired])

    /// The decision for the default path.
    public func decide(_ path: NetworkPath, for transfer: Transfer = Transfer()) -> TransferDecision {
        decide(TransferNetwork(path: path), for: transfer)
    }

    /// The decision for the network a transfer's traffic takes. A local destination (an
    /// address of this host) is always allowed: its traffic never reaches a network.
    public func decide(_ network: TransferNetwork, for transfer: Transfer = Transfer()) -> TransferDecision {
        if network.isLocal { return .allow }
        guard network.isReachable else { return .wait(.noNetwork) }
        if network.status == .cellular && !allowsCellular { return .wait(.cellularNotAllowed) }
        if network.isExpensive && !allowsExpensive { return .wait(.expensiveNotAllowed) }
        guard allowedStatuses.contains(network.status) else { return .wait(.typeNotAllowed(network.status)) }
        if requiresInternet, let connectivity = network.connectivity, connectivity != .full {
            if connectivity == .portal { return .wait(.captivePortal(url: network.portalURL)) }
            return .wait(connectivity == .unknown ? .checkingInternet : .noInternet)
        }
        // A data budget holds every transfer, user-initiated ones only past the reserve.
        for budget in network.budgets {
            let left = budget.left(for: transfer.priority)
            if left <= 0 || (transfer.expectedBytes.map { $0 > left } ?? false) {
                return .wait(.overBudget(name: budget.name, cycleEnd: budget.cycleEnd))
            }
        }
        guard transfer.priority != .userInitiated else { return .allow }
        // Each limit is a budget: what is left of it must cover the bytes still to move (when
        // known), and an exhausted budget stops a transfer of unknown size too.
        func fits(limit: Int64, moved: Int64) -> Bool {
            let left = limit - max(0, moved)
            return left > 0 && (transfer.expectedBytes.map { $0 <= left } ?? true)
        }
        if network.status == .cellular, let limit = cellularSizeLimit, !fits(limit: limit, moved: transfer.movedOnCellular) {
            return .wait(.overCellularSizeLimit(limit: limit))
        }
        if network.isExpensive, let limit = expensiveSizeLimit, !fits(limit: limit, moved: transfer.movedOnExpensive) {
            return .wait(.overExpensiveSizeLimit(limit: limit))
        }
        return .allow
    }

    /// How many bytes a transfer may still move on `network` before a size limit is passed,
    /// given the bytes it already moved on such networks: nil when no limit applies. A transfer whose size
    /// is unknown (or understated by the server) stops at this budget, so `--max-cellular 50MB`
    /// never moves more than 50 MB on cellular whatever the server says or hides.
    public func byteBudget(on network: TransferNetwork, for transfer: Transfer) -> Int64? {
        guard !network.isLocal else { return nil }
        // Data budgets are shared by all traffic: what is left of them now.
        var budgets = network.budgets.map { $0.left(for: transfer.priority) }
        guard transfer.priority != .userInitiated else { return budgets.min().map { max(0, $0) } }
        if network.status == .cellular, let limit = cellularSizeLimit { budgets.append(limit - max(0, transfer.movedOnCellular)) }
        if network.isExpensive, let limit = expensiveSizeLimit { budgets.append(limit - max(0, transfer.movedOnExpensive)) }
        return budgets.min().map { max(0, $0) }
    }
}

/// Byte counts and durations as people read them: `50 MiB`, `1.5 GiB`, `2.0 s`.
public enum ByteCount {
    /// A byte count in binary units, to one decimal: `512 B`, `1.5 KiB`, `47.7 MiB`, `2 GiB`. A
    /// limit given as `50MB` (decimal) therefore reads `47.7 MiB`.
    public static func text(_ bytes: Int64) -> String {
        let units: [(Int64, String)] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        for (size, name) in units where bytes >= size {
            let value = Double(bytes) / Double(size)
            let rounded = (value * 10).rounded() / 10
            return rounded == rounded.rounded() ? "\(Int64(rounded)) \(name)" : "\(rounded) \(name)"
        }
        return "\(bytes) B"
    }

    /// A duration in seconds, to the millisecond: `2.0 s`, `0.25 s`.
    public static func seconds(_ duration: Duration) -> String {
        let (milliseconds, overflow) = duration.components.seconds.multipliedReportingOverflow(by: 1000)
        // Past about 292 million years the milliseconds do not fit; whole seconds still do.
        guard !overflow else { return "\(duration.components.seconds) s" }
        return "\(Double(milliseconds + duration.components.attoseconds / 1_000_000_000_000_000) / 1000) s"
    }

    /// Parses `50MB`, `50M`, `1.5GiB`, `700k`, `1024` (bytes). Decimal units are powers of
    /// 1000, binary ones (`KiB`, `MiB`, `GiB`) and bare letters powers of 1024.
    ///
    /// The number is ASCII digits with at most one `.`; signs, exponents, `inf` and `nan` are
    /// refused, and so is a size above `Int64.max`: nil, never a trap. Whole bytes are exact
    /// (no trip through `Double`); only a fraction of a unit is rounded.
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingBlanks()
        let number = trimmed.prefix { $0.isASCIIDigit || $0 == "." }
        let unit = trimmed.dropFirst(number.count).trimmingBlanks().lowercased()
        guard let multiplier = multipliers[unit] else { return nil }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let wholeText = parts[0]
        let fractionText = parts.count > 1 ? parts[1] : ""
        // One dot at most, and a digit somewhere: `.5` and `5.` are sizes, `.` and `..5` not.
        guard !(wholeText.isEmpty && fractionText.isEmpty), !fractionText.contains(".") else { return nil }
        guard let whole = wholeText.isEmpty ? 0 : DecimalDigits.int64(wholeText) else { return nil }
        let (wholeBytes, overflow) = whole.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        guard !fractionText.isEmpty else { return wholeBytes }
        // In [0, multiplier] (at most 2^40), so the conversion back cannot trap.
        guard let fraction = Double("0." + fractionText) else { return nil }
        let (bytes, sumOverflow) = wholeBytes.addingReportingOverflow(Int64((fraction * Double(multiplier)).rounded()))
        return sumOverflow ? nil : bytes
    }

    private static let multipliers: [String: Int64] = [
        "": 1, "b": 1, "k": 1 << 10, "kb": 1000, "kib": 1 << 10, "m": 1 << 20, "mb": 1_000_000, "mib": 1 << 20,
        "g": 1 << 30, "gb": 1_000_000_000, "gib": 1 << 30, "t": 1 << 40, "tb": 1_000_000_000_000, "tib": 1 << 40,
    ]
}
