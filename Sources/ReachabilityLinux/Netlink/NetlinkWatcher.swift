internal import CNetlink
import Dispatch
import Glibc
public import ReachabilityCore
import Synchronization

/// Watches the kernel through libnl's cache manager and reports a fresh ``NetworkSnapshot``
/// after every batch of changes.
///
/// Threading: one owner thread creates, uses and frees every libnl object and socket; nothing
/// else touches them. It sleeps in `poll()` on the cache manager's socket, a route-event socket
/// and an `eventfd` that ``stop()`` writes. Handlers run on that thread.
///
/// Links and addresses come from libnl caches. Default routes are re-dumped (never taken from
/// libnl's route cache) when a route or rule event arrives or a link carrying a default route
/// changes, and the route lookups run after every batch. On overflow (`ENOBUFS`, reported by
/// libnl as `-NLE_NOMEM`) the socket is drained, every cache is resynchronised on a separate
/// socket, the routes are re-dumped and the result is published like any change.
public final class NetlinkWatcher: Sendable {
    /// Counters, readable from any thread.
    public struct Statistics: Sendable, Hashable {
        /// Batches of kernel messages handled.
        public var batches = 0
        /// Receive-buffer overflows detected (each followed by a resync).
        public var overflows = 0
        /// Snapshots handed to the handler, the initial one included.
        public var snapshots = 0
        /// The receive buffer the kernel granted, in bytes (it reports twice the request).
        public var receiveBufferBytes = 0
        /// Route, rule or counter dumps that failed (retried with the next batch).
        public var failedDumps = 0
        /// Link dumps made for counters (one per counter interval, and one per batch of
        /// ``NetlinkWatcher/requestCounters()`` requests).
        public var counterDumps = 0
    }

    private let statisticsBox = StatisticsBox()
    private let stopEvent: Int32
    /// Written by ``requestCounters()``: the owner thread reads the counters at once.
    private let countEvent: Int32
    private let thread = Mutex<OwnerThread?>(nil)

    /// Starts watching. Returns once the initial snapshot has been handed to `onSnapshot`, so
    /// the initial state always comes before any change. Throws if the sockets cannot be set up.
    public init(
        configuration: NetlinkConfiguration = NetlinkConfiguration(),
        onSnapshot: @escaping @Sendable (NetworkSnapshot) -> Void,
        onCounters: (@Sendable ([InterfaceCounters]) -> Void)? = nil
    ) throws(NetlinkError) {
        let event = reach_eventfd()
        guard event >= 0 else { throw NetlinkError("eventfd", errno: errno) }
        let count = reach_eventfd()
        guard count >= 0 else {
            let error = NetlinkError("eventfd", errno: errno)
            close(event)
            throw error
        }
        stopEvent = event
        countEvent = count
        let started = DispatchSemaphore(value: 0)
        let startError = Mutex<NetlinkError?>(nil)
        let statistics = statisticsBox
        let owner = OwnerThread(name: "reach-netlink") { [stopEvent, countEvent] in
            let session: WatchSession
            do throws(NetlinkError) {
                if let namespace = configuration.namespace {
                    do throws(NamespaceError) { try namespace.enterOnCurrentThread() } catch {
                        throw NetlinkError("enter namespace", errno: error.errno)
                    }
                }
                session = try WatchSession(
                    configuration: configuration, statistics: statistics, onSnapshot: onSnapshot, onCounters: onCounters)
            } catch {
                startError.withLock { $0 = error }
                started.signal()
                return
            }
            session.publishInitial()
            started.signal()
            session.run(stopEvent: stopEvent, countEvent: countEvent)
        }
        started.wait()
        if let error = startError.withLock({ $0 }) {
            owner.join()
            close(event)
            close(count)
            throw error
        }
        thread.withLock { $0 = owner }
    }

    public var statistics: Statistics { statisticsBox.value.withLock { $0 } }

    /// Asks the owner thread to read every interface's counters now (one link dump, handed to
    /// `onCounters`), not at the next interval: a decision about a data budget must not be
    /// made on a count up to an interval old. Requests made before the dump coalesce into it.
    /// Nothing happens without `onCounters` and a counter interval.
    public func requestCounters() {
        var one: UInt64 = 1
        _ = write(countEvent, &one, 8)
    }

    /// Stops the thread and frees every socket. Idempotent; returns after the thread ended, so
    /// no handler runs after it.
    public func stop() {
        guard let owner = thread.withLock({ value -> OwnerThread? in
            defer { value = nil }
            return value
        }) else { return }
        var one: UInt64 = 1
        _ = write(stopEvent, &one, 8)
        owner.join()
    }

    deinit {
        stop()
        close(stopEvent)
        close(countEvent)
    }
}

final class StatisticsBox: Sendable {
    let value = Mutex(NetlinkWatcher.Statistics())
}

/// The libnl state of one watcher. Lives and dies on the owner thread.
private final class WatchSession {
    private let configuration: NetlinkConfiguration
    private let statistics: StatisticsBox
    private let onSnapshot: @Sendable (NetworkSnapshot) -> Void
    /// Told the interfaces' counters after each publish and each counter dump.
    private let onCounters: (@Sendable ([InterfaceCounters]) -> Void)?
    private var manager: OpaquePointer?
    private var managerSocket: OpaquePointer?
    private var linkCache: OpaquePointer?
    private var addressCache: OpaquePointer?
    private let routeEvents: NetlinkSocket
    private let syncSocket: NetlinkSocket
    private let queries: RouteQueries
    private let table: LinkTable
    /// nl80211, when the kernel has it: events say which Wi-Fi interface to re-read.
    private let wifiEvents: Nl80211Events?
    private let wifiQueries: Nl80211Queries?
    /// Publishing waits (briefly) for stations that left their access point on their own.
    private var roamGrace = RoamGrace()
    private var routesNeedDump = false
    /// A route that is not a default route changed: the default path stays, but a route to one
    /// destination (what `NetworkMonitor.networks(to:)` follows) may not, so a snapshot is
    /// published (without a dump; storms are spaced like any other).
    private var otherRoutesChanged = false
    private var rulesNeedDump = true

    init(
        configuration: NetlinkConfiguration, statistics: StatisticsBox,
        onSnapshot: @escaping @Sendable (NetworkSnapshot) -> Void, onCounters: (@Sendable ([InterfaceCounters]) -> Void)?
    ) throws(NetlinkError) {
        self.configuration = configuration
        self.statistics = statistics
        self.onSnapshot = onSnapshot
        self.onCounters = configuration.counterIntervalNanoseconds == nil ? nil : onCounters
        table = LinkTable(sysfs: configuration.sysfs, leases: configuration.leases)
        syncSocket = try NetlinkSocket(operation: "connect sync socket")
        queries = try RouteQueries()
        // Subscribed before the first read of the facts, so no association falls in between.
        wifiEvents = configuration.readsWifiFacts ? Nl80211Events(receiveBufferBytes: configuration.receiveBufferBytes) : nil
        wifiQueries = wifiEvents == nil ? nil : Nl80211Queries()

        // Route and rule events only say "re-check the routes"; their content is not cached.
        routeEvents = try NetlinkSocket(operation: "connect route event socket")
        nl_socket_disable_seq_check(routeEvents.handle)
        for group in [reach_rtnlgrp_ipv4_route, reach_rtnlgrp_ipv6_route, reach_rtnlgrp_ipv4_rule, reach_rtnlgrp_ipv6_rule] {
            let result = nl_socket_add_membership(routeEvents.handle, group)
            guard result == 0 else { throw NetlinkError("join route groups", libnl: result) }
        }
        _ = nl_socket_set_nonblocking(routeEvents.handle)

        // Flags 0, not NL_AUTO_PROVIDE: that registers caches process-wide and two monitors
        // in one process would collide.
        // Our own (unconnected) socket, so that it reads each datagram once; the manager
        // connects it and we free it after the manager.
        LibnlTeardown.register()
        guard let managerSocket = NetlinkSocket.allocate() else { throw NetlinkError("allocate socket", libnl: NLE_NOMEM) }
        self.managerSocket = managerSocket
        var manager: OpaquePointer?
        var result = nl_cache_mngr_alloc(managerSocket, NETLINK_ROUTE, 0, &manager)
        guard result == 0, let manager else { throw NetlinkError("allocate cache manager", libnl: result) }
        self.manager = manager
        let granted = SocketOptions.setReceiveBuffer(fileDescriptor: nl_cache_mngr_get_fd(manager), bytes: configuration.receiveBufferBytes)
        SocketOptions.setReceiveBuffer(fileDescriptor: routeEvents.fileDescriptor, bytes: configuration.receiveBufferBytes)
        statistics.value.withLock { $0.receiveBufferBytes = granted }
        routeEvents.onValidMessage({ message, context in
            guard let message, let context, let header = nlmsg_hdr(message) else { return Int32(NL_OK.rawValue) }
            let session = Unmanaged<WatchSession>.fromOpaque(context).takeUnretainedValue()
            session.routeEvent(header)
            return Int32(NL_OK.rawValue)
        }, target: self)

        let context = Unmanaged.passUnretained(self).toOpaque()
        // Subscribes before dumping, so no change falls between the dump and the stream.
        var linkCache: OpaquePointer?
        result = nl_cache_mngr_add(manager, LibnlObjects.linkType, WatchSession.changed, context, &linkCache)
        guard result == 0, let linkCache else { throw NetlinkError("watch links", libnl: result) }
        var addressCache: OpaquePointer?
        result = nl_cache_mngr_add(manager, LibnlObjects.addressType, WatchSession.changed, context, &addressCache)
        guard result == 0, let addressCache else { throw NetlinkError("watch addresses", libnl: result) }
        self.linkCache = linkCache
        self.addressCache = addressCache
        table.rebuild(linkCache: linkCache, addressCache: addressCache)
        routesNeedDump = true
    }

    deinit {
        // Frees the manager's sync socket and the caches it owns; the event socket is ours.
        let (manager, managerSocket) = (manager, managerSocket)
        LibnlTeardown.free {
            if let manager { nl_cache_mngr_free(manager) }
            if let managerSocket { nl_socket_free(managerSocket) }
        }
    }

    /// A publish cheaper than this (a host with tens of interfaces) is never spaced out.
    private static let cheapPublish: Int64 = 50_000
    /// Publishes allowed at once inside the spacing window before spacing applies, and the
    /// quiet time after which that allowance is whole again.
    private static let eagerPublishBurst = 3
    private static let quietSpell: Int64 = 50_000_000
    /// During a storm, publishes are this many times their own CPU cost apart.
    private static let publishSpacingFactor: Int64 = 20
    /// Upper bound of the spacing between publishes during a storm.
    private static let longestPublishSpacing: Int64 = 250_000_000

    private static let changed: change_func_t = { _, object, action, context in
        guard let object, let context else { return }
        let session = Unmanaged<WatchSession>.fromOpaque(context).takeUnretainedValue()
        session.table.apply(object: object, action: action)
    }

    private func routeEvent(_ header: UnsafeMutablePointer<nlmsghdr>) {
        if let route = RouteMessage(header) {
            if route.isDefault && !route.isClone { routesNeedDump = true } else if !route.isClone { otherRoutesChanged = true }
        } else {
            rulesNeedDump = true  // a policy rule changed: its marks and the lookups may differ
        }
    }

    /// Reads nl80211 facts for the interfaces events or link changes named.
    private func refreshWifi(_ events: Set<Int32>) {
        guard let wifiQueries else { return }
        for index in events.union(table.takeWifiCandidates()) {
            table.setWifi(wifiQueries.facts(for: index), for: index)
        }
    }

    /// Reads nl80211's queued events (non-blocking: cheap when there are none), re-reads the
    /// interfaces they name and those rtnl changed, and updates the roam grace.
    private func receiveWifiEvents() {
        guard let wifiEvents else { return }
        let received = wifiEvents.receive()
        if received.overflowed { statistics.value.withLock { $0.overflows += 1 } }
        var indices = received.overflowed ? received.indices.union(table.allWifiInterfaces) : received.indices
        indices.formUnion(received.scanned.filter { table.links[$0]?.wifi?.association != nil })
        refreshWifi(indices)
        roamGrace.update(
            carrying: table.carryingStations, endedForGood: received.endedForGood, progressing: received.progressing, at: reach_monotonic_ns())
    }

    func publishInitial() {
        refreshWifi([])
        refreshRoutes(dump: true)
        _ = table.takeChanges()
        publish()
    }

    func run(stopEvent: Int32, countEvent: Int32) {
        guard let manager else { return }
        var fds = [
            pollfd(fd: nl_cache_mngr_get_fd(manager), events: Int16(POLLIN), revents: 0),
            pollfd(fd: routeEvents.fileDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopEvent, events: Int16(POLLIN), revents: 0),
            // nl80211's events, or nothing (a negative fd is ignored by poll).
            pollfd(fd: wifiEvents?.fileDescriptor ?? -1, events: Int16(POLLIN), revents: 0),
            // Counter readings asked for (``NetlinkWatcher/requestCounters()``).
            pollfd(fd: onCounters == nil ? -1 : countEvent, events: Int16(POLLIN), revents: 0),
        ]
        // Changes read but not yet published, and when the next publish may happen.
        var pending = false
        var pendingDump = false
        var nextPublish: Int64 = 0
        // Publishes made inside the spacing window: the first few go out at once, so a change
        // that comes in two steps (link up, then its route) is not held back like a storm.
        var eagerPublishes = 0
        var lastPublish: Int64 = 0
        // The next counter dump, when counting.
        var countersDue = configuration.counterIntervalNanoseconds.map { reach_monotonic_ns() + $0 }
        while true {
            for index in fds.indices { fds[index].revents = 0 }
            let publishAt = max(eagerPublishes < Self.eagerPublishBurst ? 0 : nextPublish, roamGrace.deadline ?? 0)
            var wait: Int64 = pending ? max(0, publishAt - reach_monotonic_ns()) : -1
            if let countersDue {
                let untilDump = max(0, countersDue - reach_monotonic_ns())
                wait = wait < 0 ? untilDump : min(wait, untilDump)
            }
            let ready = reach_poll_ns(&fds, nfds_t(fds.count), wait)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[2].revents != 0 { return }
            var countersAsked = false
            if fds[4].revents != 0 {
                var value: UInt64 = 0
                _ = read(countEvent, &value, 8)
                countersAsked = true
            }
            if ready > 0 {
                var overflowed = false
                // A burst (a thousand veths created by a script) arrives as many small reads.
                // While more is already queued, keep reading before publishing.
                for round in 0..<64 {
                    if fds[1].revents != 0 { overflowed = receiveRouteEvents() || overflowed }
                    if fds[0].revents != 0 { overflowed = receiveCacheEvents(manager) || overflowed }
                    if round == 63 { break }
                    fds[0].revents = 0
                    fds[1].revents = 0
                    guard poll(&fds, 2, 0) > 0 else { break }
                }
                if overflowed { resync() }
                // Every batch: an rtnl carrier change can come before nl80211's disconnect.
                receiveWifiEvents()
                let changes = table.takeChanges()
                pendingDump = pendingDump || routesNeedDump || rulesNeedDump || changes.routes
                pending = pending || changes.changed || pendingDump || otherRoutesChanged
                otherRoutesChanged = false
                statistics.value.withLock { $0.batches += 1 }
                let purged = purgeDeletedFamilyObjects()
                // After many links went away (or a resync rebuilt everything), give the freed
                // memory back instead of keeping the burst's peak for the life of the monitor.
                if overflowed || purged >= 64 { _ = malloc_trim(0) }
            }
            // Publishing costs O(interfaces). A change after a quiet spell is published at
            // once, and so are the next `eagerPublishBurst`; while changes keep coming and a
            // publish costs more than `cheapPublish`, publishes are then spaced by
            // `publishSpacingFactor` times what the last one cost, so a storm over thousands of
            // links spends at most about a twentieth of a core on them; the settled state still
            // goes out one spacing (at most `longestPublishSpacing`) after the storm.
            // The cost is CPU time, so a handler that blocks does not stretch the spacing.
            if let due = countersDue, let interval = configuration.counterIntervalNanoseconds, countersAsked || reach_monotonic_ns() >= due {
                dumpCounters()
                countersDue = reach_monotonic_ns() + interval
            }
            guard pending else { continue }
            let now = reach_monotonic_ns()
            // A station that may be roaming: its outage is not published unless it lasts.
            guard roamGrace.mayPublish(at: now) else { continue }
            // Only a quiet spell refills the burst; in a storm, spacing applies throughout.
            if now - lastPublish >= Self.quietSpell { eagerPublishes = 0 }
            if now < nextPublish && eagerPublishes >= Self.eagerPublishBurst { continue }
            if now < nextPublish { eagerPublishes += 1 }
            lastPublish = now
            let started = reach_thread_cpu_ns()
            refreshRoutes(dump: pendingDump)
            publish()
            pending = false
            pendingDump = false
            let cost = reach_thread_cpu_ns() - started
            nextPublish = cost < Self.cheapPublish ? 0 : reach_monotonic_ns() + min(Self.publishSpacingFactor * cost, Self.longestPublishSpacing)
        }
    }

    /// Reads every queued route event; true if the socket overflowed.
    private func receiveRouteEvents() -> Bool {
        var overflowed = false
        while true {
            let result = nl_recvmsgs_default(routeEvents.handle)
            if result == -NLE_NOMEM {
                overflowed = true
                routesNeedDump = true
                continue
            }
            // 0 or -NLE_AGAIN: nothing left to read.
            if result <= 0 { return overflowed }
        }
    }

    /// Lets the cache manager read every queued message; true if the socket overflowed.
    private func receiveCacheEvents(_ manager: OpaquePointer) -> Bool {
        var overflowed = false
        // After ENOBUFS the queue still holds messages older than any new dump: drain them
        // before resyncing, or the resync would be undone by stale deltas.
        for _ in 0..<1_000 {
            let result = nl_cache_mngr_data_ready(manager)
            if result == -NLE_NOMEM {
                overflowed = true
                continue
            }
            break
        }
        return overflowed
    }

    private func resync() {
        statistics.value.withLock { $0.overflows += 1 }
        guard let linkCache, let addressCache else { return }
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = nl_cache_resync(syncSocket.handle, linkCache, WatchSession.changed, context)
        _ = nl_cache_resync(syncSocket.handle, addressCache, WatchSession.changed, context)
        table.rebuild(linkCache: linkCache, addressCache: addressCache)
        routesNeedDump = true
        rulesNeedDump = true
    }

    private func refreshRoutes(dump: Bool) {
        do {
            try table.refreshRoutes(queries, probes: configuration.probes, dump: dump, dumpRules: rulesNeedDump)
            if dump { routesNeedDump = false }
            rulesNeedDump = false
        } catch {
            // A failed dump keeps the previous routes and is retried with the next batch.
            statistics.value.withLock { $0.failedDumps += 1 }
        }
    }

    private func publish() {
        statistics.value.withLock { $0.snapshots += 1 }
        onSnapshot(table.snapshot())
        // The counters the batch's link messages carried (libnl keeps each link's latest),
        // after the snapshot, so they are matched against the interfaces as now classified.
        guard let onCounters, let linkCache else { return }
        var samples = table.takeRemovedCounters()
        LibnlObjects.forEach(linkCache) { link in
            if let counters = LibnlObjects.counters(link: link) { samples.append(counters) }
        }
        onCounters(samples)
    }

    /// One link dump for fresh counters (the kernel sends no message when only they change).
    /// A failed dump is skipped: the next one counts what this one missed.
    private func dumpCounters() {
        guard let onCounters else { return }
        var cache: OpaquePointer?
        guard rtnl_link_alloc_cache(syncSocket.handle, AF_UNSPEC, &cache) == 0, let cache else {
            statistics.value.withLock { $0.failedDumps += 1 }
            return
        }
        defer { nl_cache_free(cache) }
        var samples = table.takeRemovedCounters()
        LibnlObjects.forEach(cache) { link in
            if let counters = LibnlObjects.counters(link: link) { samples.append(counters) }
        }
        statistics.value.withLock { $0.counterDumps += 1 }
        onCounters(samples)
    }

    /// libnl keeps an `AF_INET6` (and, for bridge ports, `AF_BRIDGE`) link object per
    /// interface that no deletion ever removes; drop those of deleted interfaces so a
    /// long-running monitor does not grow. Looked up by (family, index) in libnl's hash table:
    /// a scan of the whole cache per batch made mass deletions quadratic.
    @discardableResult
    private func purgeDeletedFamilyObjects() -> Int {
        let deleted = table.takeDeletedIndices()
        guard !deleted.isEmpty, let linkCache, let needle = rtnl_link_alloc() else { return 0 }
        defer { rtnl_link_put(needle) }
        for index in deleted {
            rtnl_link_set_ifindex(needle, index)
            for family in [AF_INET6, AF_BRIDGE] {
                rtnl_link_set_family(needle, family)
                guard let stale = nl_cache_search(linkCache, needle) else { continue }
                nl_cache_remove(stale)
                nl_object_put(stale)
            }
        }
        return deleted.count
    }
}
