import ReachabilityLinux
import Synchronization

/// Counters of a ``NetworkMonitor``'s kernel source, summed over every run of its netlink
/// thread (a monitor starts one with its first iterator and stops it with its last).
///
/// Read from memory (``NetworkMonitor/statistics``): no syscall, no netlink round trip, so a
/// metrics scrape can read them as often as it likes.
public struct MonitorStatistics: Sendable, Hashable {
    /// Times the netlink receive buffer overflowed (`ENOBUFS`): kernel events were lost, and
    /// each time every cache was resynchronised from a fresh dump (so this is also the number
    /// of resyncs). A steady rise means the socket buffer is too small for the host's churn.
    public var overflows: Int
    /// Link dumps made to read the interfaces' byte counters (one per
    /// `MonitorConfiguration.counterInterval`, when counting).
    public var counterDumps: Int

    /// Counters with the given values (zero by default).
    public init(overflows: Int = 0, counterDumps: Int = 0) {
        self.overflows = overflows
        self.counterDumps = counterDumps
    }
}

extension NetworkMonitor {
    /// The source's counters so far, over every run; all zero for a source that keeps none
    /// (anything but ``KernelNetworkSource``, such as a test's fake). Never decreases.
    public var statistics: MonitorStatistics { sourceStatistics.total }
}

/// The counters of the runs that ended plus those of the runs in progress. A run moves from
/// one to the other under one lock once its thread has stopped, so the total never goes back.
final class SourceStatisticsLedger: Sendable {
    private struct State {
        var ended = MonitorStatistics()
        var running: [UInt64: NetlinkWatcher] = [:]
    }

    private let state = Mutex(State())

    var total: MonitorStatistics {
        state.withLock { state in
            state.running.values.reduce(into: state.ended) { total, watcher in total.add(watcher.statistics) }
        }
    }

    /// Counts `subscription`'s watcher, if it has one, until the returned subscription is
    /// cancelled; the monitor keeps and cancels the returned one in its place.
    func track(_ subscription: any NetworkStateSubscription, run: UInt64) -> any NetworkStateSubscription {
        guard let watcher = (subscription as? WatcherSubscription)?.watcher else { return subscription }
        state.withLock { $0.running[run] = watcher }
        return CountedSubscription(base: subscription, run: run, ledger: self)
    }

    fileprivate func ended(run: UInt64) {
        state.withLock { state in
            guard let watcher = state.running.removeValue(forKey: run) else { return }
            state.ended.add(watcher.statistics)
        }
    }
}

/// A watcher's subscription that hands its final counters to the ledger once stopped.
private struct CountedSubscription: NetworkStateSubscription {
    let base: any NetworkStateSubscription
    let run: UInt64
    let ledger: SourceStatisticsLedger

    func cancel() {
        base.cancel()  // joins the netlink thread: its counters are final after this
        ledger.ended(run: run)
    }

    func requestCounters() { base.requestCounters() }
}

extension MonitorStatistics {
    fileprivate mutating func add(_ watcher: NetlinkWatcher.Statistics) {
        overflows += watcher.overflows
        counterDumps += watcher.counterDumps
    }
}
