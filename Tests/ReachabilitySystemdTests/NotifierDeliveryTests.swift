import Glibc
import ReachabilitySystemd
import ReachabilityTestKit
import Testing

/// Notifications through a real datagram socket, read back by the manager's side.
@Suite struct NotifierDeliveryTests {
    @Test func sendReachesASocketAtAPath() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let receiver = try NotifySocketReceiver(directory: directory.path)
        let notifier = try #require(SystemdNotifier(socketPath: receiver.path))

        try notifier.send([("STATUS", "Working"), ("X_CUSTOM", "a=b")])
        #expect(receiver.nextDatagram(timeout: .seconds(10)) == "STATUS=Working\nX_CUSTOM=a=b")
    }

    @Test func sendReachesAnAbstractSocket() throws {
        let receiver = try NotifySocketReceiver()
        #expect(receiver.path.hasPrefix("@"))
        let notifier = try #require(SystemdNotifier(socketPath: receiver.path))

        try notifier.watchdog()
        try notifier.watchdog()
        #expect(receiver.next(timeout: .seconds(10)) == ["WATCHDOG": "1"])
        #expect(receiver.next(timeout: .seconds(10)) == ["WATCHDOG": "1"])
    }

    @Test func readyCarriesStatusAndMainPID() throws {
        let receiver = try NotifySocketReceiver()
        let notifier = try #require(SystemdNotifier(socketPath: receiver.path))

        try notifier.ready(status: "Idle: 0 jobs")
        #expect(receiver.next(timeout: .seconds(10)) == ["READY": "1", "STATUS": "Idle: 0 jobs", "MAINPID": String(getpid())])
    }

    @Test func stoppingAndTimeoutExtensions() throws {
        let receiver = try NotifySocketReceiver()
        let notifier = try #require(SystemdNotifier(socketPath: receiver.path))

        try notifier.stopping(status: "Finishing 2 transfers")
        #expect(receiver.next(timeout: .seconds(10)) == ["STOPPING": "1", "STATUS": "Finishing 2 transfers"])
        let extensions: [(Duration, String)] = [
            (.milliseconds(1500), "1500000"), (.seconds(-3), "0"), (.nanoseconds(999), "0"),
            (.seconds(Int64.max), String(UInt64.max)),
        ]
        for (duration, microseconds) in extensions {
            try notifier.extendTimeout(duration)
            #expect(receiver.next(timeout: .seconds(10)) == ["EXTEND_TIMEOUT_USEC": microseconds])
        }
    }

    @Test func statusIsSentAsOneLine() throws {
        let receiver = try NotifySocketReceiver()
        let notifier = try #require(SystemdNotifier(socketPath: receiver.path))

        try notifier.status("line one\nREADY=1\r\tend")
        #expect(receiver.nextDatagram(timeout: .seconds(10)) == "STATUS=line one READY=1  end")
        try notifier.send([("STATUS", "a\nb")])
        #expect(receiver.nextDatagram(timeout: .seconds(10)) == "STATUS=a b")
    }

    @Test func malformedAssignmentsAreRefusedBeforeSending() throws {
        let receiver = try NotifySocketReceiver()
        let notifier = try #require(SystemdNotifier(socketPath: receiver.path))
        let malformed: [[(String, String)]] = [
            [], [("", "1")], [("READY=1\nX", "1")], [("BAD KEY", "1")], [("X_VALUE", "two\nlines")],
            [("X_VALUE", "nul\u{0}byte")], [("X_BIG", String(repeating: "x", count: 5000))],
        ]
        for assignments in malformed {
            let error = #expect(throws: SystemdNotifyError.self) { try notifier.send(assignments) }
            #expect(error?.code == .invalidMessage)
            #expect(error?.errorNumber == nil)
        }
        #expect(receiver.nextDatagram(timeout: .milliseconds(50)) == nil)
    }

    @Test func aMissingSocketIsAThrownError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let notifier = try #require(SystemdNotifier(socketPath: directory.path + "/absent.sock"))

        let error = #expect(throws: SystemdNotifyError.self) { try notifier.ready(status: "Ready") }
        #expect(error?.code == .sendFailed)
        #expect(error?.errorNumber == ENOENT)
        #expect(error?.description.contains("absent.sock") == true)
        // The notifier stays usable: the same socket is reused for the next send.
        let error2 = #expect(throws: SystemdNotifyError.self) { try notifier.watchdog() }
        #expect(error2?.code == .sendFailed)
    }

    @Test func anAbstractNameNobodyBoundIsAThrownError() throws {
        let notifier = try #require(SystemdNotifier(socketPath: "@reach-test-unbound-\(getpid())-\(UInt64.random(in: 0 ... .max))"))
        let error = #expect(throws: SystemdNotifyError.self) { try notifier.watchdog() }
        #expect(error?.code == .sendFailed)
        #expect(error?.errorNumber == ECONNREFUSED)
    }
}
