/// One uplink as validation tells them apart: the interface and the network it is on.
public struct UplinkKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The interface index.
    public var index: Int32
    /// A fingerprint of the interface's network (its addresses and gateways, as the caller
    /// writes them): when it changes, the uplink is on a new network and is validated anew.
    public var network: String

    /// A key given field by field.
    public init(index: Int32, network: String) {
        self.index = index
        self.network = network
    }

    /// By index, then fingerprint: the order ``ValidationSchedule/takeDue(now:)`` hands keys out.
    public static func < (lhs: UplinkKey, rhs: UplinkKey) -> Bool {
        lhs.index != rhs.index ? lhs.index < rhs.index : lhs.network < rhs.network
    }

    public var description: String { "\(index)/\(network)" }
}

/// When to probe each uplink, as a pure state machine: the caller tells it which uplinks exist,
/// takes the ones due, and reports each round's result; time is a `Duration` since any origin
/// the caller keeps to (no clock inside).
///
/// A new uplink (or one whose network changed, which is a new key) is due at once. After a
/// round that found ``Connectivity/full`` the next is due after the recheck interval; after any
/// other result it is retried with exponential backoff, from the initial retry doubling up to
/// the maximum (Android: 1 s, 2 s, 4 s … 10 minutes), and a `full` result resets the backoff. A
/// key is never handed out again while its round is in flight.
public struct ValidationSchedule: Sendable {
    private struct Entry: Sendable {
        /// When the next round is due; nil while one is in flight.
        var due: Duration?
        /// The wait after the next round that does not find `full`.
        var retry: Duration
        /// Still among the present uplinks; an absent one is kept only until its round ends.
        var wanted = true
        /// Due again as soon as the round in flight ends (a re-check was asked for meanwhile).
        var recheckWhenFinished = false
        var inFlight: Bool { due == nil }
    }

    /// The first wait after a round that did not find `full`.
    public let initialRetry: Duration
    /// The longest wait between rounds that do not find `full`.
    public let maximumRetry: Duration
    /// The wait after a round that found `full`.
    public let recheckInterval: Duration
    private var entries: [UplinkKey: Entry] = [:]

    /// A schedule with no uplinks. Waits are kept sane, so no input makes it probe in a busy
    /// loop: the initial retry is at least 1 ms, and neither the maximum retry nor the recheck
    /// interval is shorter than it.
    public init(initialRetry: Duration, maximumRetry: Duration, recheckInterval: Duration) {
        let initial = max(initialRetry, .milliseconds(1))
        self.initialRetry = initial
        self.maximumRetry = max(maximumRetry, initial)
        self.recheckInterval = max(recheckInterval, initial)
    }

    /// A schedule with the waits of `validation`.
    public init(_ validation: ConnectivityValidation) {
        self.init(
            initialRetry: validation.initialRetry, maximumRetry: validation.maximumRetry, recheckInterval: validation.recheckInterval
        )
    }

    /// The uplinks present now. New keys are due at once; vanished ones are forgotten, and the
    /// result of a round still in flight for one will be refused by ``finished(_:connectivity:now:)``.
    /// A key that comes back while its old round is in flight is due again when that round ends.
    public mutating func setUplinks(_ keys: Set<UplinkKey>, now: Duration) {
        for (key, entry) in entries where !keys.contains(key) {
            if entry.inFlight {
                entries[key]?.wanted = false
            } else {
                entries[key] = nil
            }
        }
        for key in keys {
            guard let entry = entries[key] else {
                entries[key] = Entry(due: now, retry: initialRetry)
                continue
            }
            if !entry.wanted {
                entries[key]?.wanted = true
                entries[key]?.recheckWhenFinished = true
            }
        }
    }

    /// The keys due at `now` whose round is not already in flight, in key order; they are marked
    /// in flight until ``finished(_:connectivity:now:)``.
    public mutating func takeDue(now: Duration) -> [UplinkKey] {
        let due = entries.filter { $0.value.wanted && ($0.value.due.map { $0 <= now } ?? false) }.keys.sorted()
        for key in due { entries[key]?.due = nil }
        return due
    }

    /// A round on `key` ended with `connectivity`. False when the key is no longer present (or
    /// was not in flight): ignore the result. Otherwise schedules the next round: after `full`,
    /// `now` plus the recheck interval, with the backoff reset; after anything else, `now` plus
    /// the current retry, which then doubles up to the maximum.
    public mutating func finished(_ key: UplinkKey, connectivity: Connectivity, now: Duration) -> Bool {
        guard var entry = entries[key], entry.inFlight else { return false }
        guard entry.wanted else {
            entries[key] = nil
            return false
        }
        if entry.recheckWhenFinished {
            entry = Entry(due: now, retry: initialRetry)
        } else if connectivity == .full {
            entry.due = now + recheckInterval
            entry.retry = initialRetry
        } else {
            entry.due = now + entry.retry
            // Halving the maximum rather than doubling the retry: no overflow, whatever the waits.
            entry.retry = entry.retry > maximumRetry / 2 ? maximumRetry : min(entry.retry * 2, maximumRetry)
        }
        entries[key] = entry
        return true
    }

    /// Forgets what was learned and makes every present uplink due at `now` with the backoff
    /// reset (a user asked for a re-check). A round in flight is not repeated alongside: its
    /// result still counts, and its key is due again as soon as it ends.
    public mutating func recheckAll(now: Duration) {
        for (key, entry) in entries where entry.wanted {
            if entry.inFlight {
                entries[key]?.recheckWhenFinished = true
            } else {
                entries[key] = Entry(due: now, retry: initialRetry)
            }
        }
    }

    /// When the next key becomes due, if any (nil: no uplinks, or every round in flight).
    public var nextDue: Duration? {
        entries.values.lazy.filter(\.wanted).compactMap(\.due).min()
    }

    /// When `key`'s next round is due; nil when the key is unknown or its round is in flight.
    public func due(_ key: UplinkKey) -> Duration? {
        guard let entry = entries[key], entry.wanted else { return nil }
        return entry.due
    }

    /// The present uplinks.
    public var uplinks: Set<UplinkKey> {
        Set(entries.filter { $0.value.wanted }.keys)
    }
}
