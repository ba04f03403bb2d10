import ReachabilityCore
import Testing

// When each uplink is probed: scenarios as tables of steps at given times (in seconds since an
// arbitrary origin), each step checking what the schedule answers.

private let wlan = UplinkKey(index: 3, network: "192.0.2.10/24 via 192.0.2.1")
private let wlanMoved = UplinkKey(index: 3, network: "198.51.100.7/24 via 198.51.100.1")
private let eth = UplinkKey(index: 2, network: "10.0.0.5/8 via 10.0.0.1")

enum ScheduleStep: Sendable {
    /// `setUplinks` at a time.
    case present([UplinkKey], at: Int)
    /// `takeDue` at a time, and the keys it must hand out.
    case take(at: Int, expect: [UplinkKey])
    /// `finished` at a time, and what it must answer.
    case finish(UplinkKey, Connectivity, at: Int, accepted: Bool)
    /// `recheckAll` at a time.
    case recheck(at: Int)
    /// What `nextDue` must be now.
    case nextDue(Int?)
    /// What `due(_:)` must be for a key now.
    case due(UplinkKey, Int?)
}

struct ScheduleScenario: Sendable, CustomTestStringConvertible {
    var name: String
    var steps: [ScheduleStep]
    var testDescription: String { name }
}

private let scenarios: [ScheduleScenario] = [
    ScheduleScenario(name: "a new uplink is probed at once, and only once while in flight", steps: [
        .nextDue(nil),
        .present([wlan], at: 5), .nextDue(5), .due(wlan, 5),
        .take(at: 4, expect: []),
        .take(at: 5, expect: [wlan]), .nextDue(nil), .due(wlan, nil),
        .take(at: 6, expect: []), .take(at: 10_000, expect: []),
        .present([wlan], at: 7), .take(at: 7, expect: []),
        .finish(wlan, .limited, at: 8, accepted: true), .nextDue(9),
    ]),
    ScheduleScenario(name: "full is re-checked after the interval, and resets the backoff", steps: [
        .present([wlan], at: 0), .take(at: 0, expect: [wlan]),
        .finish(wlan, .limited, at: 1, accepted: true), .due(wlan, 2),
        .take(at: 2, expect: [wlan]), .finish(wlan, .portal, at: 2, accepted: true), .due(wlan, 4),
        .take(at: 4, expect: [wlan]), .finish(wlan, .full, at: 4, accepted: true), .due(wlan, 1804),
        .take(at: 1803, expect: []),
        .take(at: 1804, expect: [wlan]), .finish(wlan, .partial, at: 1805, accepted: true), .due(wlan, 1806),
    ]),
    ScheduleScenario(name: "a changed network is due at once, with the backoff reset", steps: [
        .present([wlan], at: 0), .take(at: 0, expect: [wlan]),
        .finish(wlan, .limited, at: 0, accepted: true), .take(at: 1, expect: [wlan]),
        .finish(wlan, .limited, at: 1, accepted: true), .take(at: 3, expect: [wlan]),
        .finish(wlan, .limited, at: 3, accepted: true), .due(wlan, 7),
        .present([wlanMoved], at: 5), .due(wlan, nil), .due(wlanMoved, 5), .nextDue(5),
        .take(at: 5, expect: [wlanMoved]), .finish(wlanMoved, .limited, at: 5, accepted: true), .due(wlanMoved, 6),
    ]),
    ScheduleScenario(name: "a vanished uplink's result is refused", steps: [
        .present([wlan, eth], at: 0), .take(at: 0, expect: [eth, wlan]),
        .present([eth], at: 1), .nextDue(nil),
        .finish(wlan, .full, at: 2, accepted: false), .nextDue(nil),
        .finish(eth, .full, at: 2, accepted: true), .nextDue(1802),
        .finish(eth, .full, at: 3, accepted: false),
        .present([], at: 4), .nextDue(nil), .take(at: 5000, expect: []),
    ]),
    ScheduleScenario(name: "a network changed during its round: the old result is refused", steps: [
        .present([wlan], at: 0), .take(at: 0, expect: [wlan]),
        .present([wlanMoved], at: 1), .take(at: 1, expect: [wlanMoved]),
        .finish(wlan, .portal, at: 2, accepted: false),
        .finish(wlanMoved, .full, at: 2, accepted: true), .due(wlanMoved, 1802),
    ]),
    ScheduleScenario(name: "an uplink back during its old round is not probed twice", steps: [
        .present([wlan], at: 0), .take(at: 0, expect: [wlan]),
        .present([], at: 1), .present([wlan], at: 2),
        .take(at: 2, expect: []), .nextDue(nil),
        .finish(wlan, .full, at: 3, accepted: true), .due(wlan, 3),
        .take(at: 3, expect: [wlan]),
    ]),
    ScheduleScenario(name: "an unknown key is refused", steps: [
        .finish(wlan, .full, at: 0, accepted: false),
        .present([wlan], at: 0), .finish(wlan, .full, at: 0, accepted: false), .due(wlan, 0),
    ]),
    ScheduleScenario(name: "a re-check makes every uplink due and resets the backoff", steps: [
        .present([wlan, eth], at: 0), .take(at: 0, expect: [eth, wlan]),
        .finish(eth, .full, at: 0, accepted: true),
        .finish(wlan, .limited, at: 0, accepted: true), .take(at: 1, expect: [wlan]),
        .finish(wlan, .limited, at: 1, accepted: true), .due(wlan, 3),
        .recheck(at: 2), .due(eth, 2), .due(wlan, 2), .nextDue(2),
        .take(at: 2, expect: [eth, wlan]),
        .finish(wlan, .limited, at: 2, accepted: true), .due(wlan, 3),
    ]),
    ScheduleScenario(name: "a re-check during a round waits for it, then probes again", steps: [
        .present([wlan, eth], at: 0), .take(at: 0, expect: [eth, wlan]),
        .finish(eth, .full, at: 0, accepted: true),
        .recheck(at: 1), .take(at: 1, expect: [eth]), .nextDue(nil),
        .finish(wlan, .full, at: 2, accepted: true), .due(wlan, 2),
        .take(at: 2, expect: [wlan]),
    ]),
]

private func seconds(_ value: Int?) -> Duration? { value.map { .seconds($0) } }

@Suite("Validation schedule")
struct ValidationScheduleTests {
    @Test(arguments: scenarios)
    func scenario(_ scenario: ScheduleScenario) {
        var schedule = ValidationSchedule(initialRetry: .seconds(1), maximumRetry: .seconds(600), recheckInterval: .seconds(1800))
        for (number, step) in scenario.steps.enumerated() {
            let context: Comment = "step \(number + 1): \(step)"
            switch step {
            case .present(let keys, let at):
                schedule.setUplinks(Set(keys), now: .seconds(at))
            case .take(let at, let expected):
                #expect(schedule.takeDue(now: .seconds(at)) == expected, context)
            case .finish(let key, let connectivity, let at, let accepted):
                #expect(schedule.finished(key, connectivity: connectivity, now: .seconds(at)) == accepted, context)
            case .recheck(let at):
                schedule.recheckAll(now: .seconds(at))
            case .nextDue(let expected):
                #expect(schedule.nextDue == seconds(expected), context)
            case .due(let key, let expected):
                #expect(schedule.due(key) == seconds(expected), context)
            }
        }
    }

    /// Android's sequence: 1 s doubling to 10 minutes, then staying there.
    @Test func backoffDoublesUpToTheMaximum() {
        var schedule = ValidationSchedule(initialRetry: .seconds(1), maximumRetry: .seconds(600), recheckInterval: .seconds(1800))
        schedule.setUplinks([wlan], now: .zero)
        var now = Duration.zero
        var waits: [Duration] = []
        for _ in 0..<13 {
            #expect(schedule.takeDue(now: now) == [wlan])
            let accepted = schedule.finished(wlan, connectivity: .limited, now: now)
            #expect(accepted)
            guard let due = schedule.nextDue else { break }
            waits.append(due - now)
            now = due
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600, 600].map { Duration.seconds($0) })
    }

    @Test func waitsAreKeptSane() {
        var schedule = ValidationSchedule(initialRetry: .zero, maximumRetry: .seconds(-5), recheckInterval: .zero)
        #expect(schedule.initialRetry == .milliseconds(1))
        #expect(schedule.maximumRetry == .milliseconds(1))
        #expect(schedule.recheckInterval == .milliseconds(1))
        schedule.setUplinks([eth], now: .zero)
        _ = schedule.takeDue(now: .zero)
        let accepted = schedule.finished(eth, connectivity: .limited, now: .zero)
        #expect(accepted)
        #expect(schedule.nextDue == .milliseconds(1))
    }

    @Test func hugeWaitsDoNotOverflow() {
        let initial = Duration.seconds(Int64.max / 4)
        let huge = Duration.seconds(Int64.max)
        var schedule = ValidationSchedule(initialRetry: initial, maximumRetry: huge, recheckInterval: huge)
        schedule.setUplinks([eth], now: .zero)
        var now = Duration.zero
        var waits: [Duration] = []
        for _ in 0..<4 {
            #expect(schedule.takeDue(now: now) == [eth])
            let accepted = schedule.finished(eth, connectivity: .limited, now: now)
            #expect(accepted)
            guard let due = schedule.nextDue else { break }
            waits.append(due - now)
            now = due
        }
        #expect(waits == [initial, initial * 2, initial * 4, huge])
    }

    @Test func takesItsWaitsFromTheValidation() throws {
        let validation = ConnectivityValidation(
            endpoints: [try ProbeEndpoint(parsing: "http://probe.example/")], initialRetry: .seconds(2), maximumRetry: .seconds(60),
            recheckInterval: .seconds(300)
        )
        let schedule = ValidationSchedule(validation)
        #expect(schedule.initialRetry == .seconds(2))
        #expect(schedule.maximumRetry == .seconds(60))
        #expect(schedule.recheckInterval == .seconds(300))
        #expect(schedule.uplinks.isEmpty)
    }
}
