@testable import Reachability
import ReachabilityCore
import Testing

/// The monitor's lifecycle as a table of event sequences: each row plays events against the
/// state machine and states what it must answer.
@Suite("MonitorLifecycle")
struct MonitorLifecycleTests {
    typealias Lifecycle = MonitorLifecycle<String, String>
    static let wifi = NetworkPath(status: .wifi)
    static let cellular = NetworkPath(status: .cellular)

    enum Step: CustomStringConvertible {
        case subscribe(UInt64, expect: String)
        case unsubscribe(UInt64, expectStop: String?)
        case started(run: UInt64, expectStop: String?)
        case failed(run: UInt64, expectEnded: [String])
        case path(NetworkPath, run: UInt64, expectTo: [String])

        var description: String {
            switch self {
            case .subscribe(let id, _): "subscribe \(id)"
            case .unsubscribe(let id, _): "unsubscribe \(id)"
            case .started(let run, _): "started \(run)"
            case .failed(let run, _): "failed \(run)"
            case .path(let path, let run, _): "path \(path.status) run \(run)"
            }
        }
    }

    struct Row: CustomStringConvertible, Sendable {
        var name: String
        var steps: @Sendable () -> [Step]
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(name: "the first subscriber starts the source; later ones get the latest path") {
            [
                .subscribe(1, expect: "start 1"),
                .path(wifi, run: 1, expectTo: ["s1"]),
                .started(run: 1, expectStop: nil),
                .subscribe(2, expect: "replay wifi"),
            ]
        },
        Row(name: "a subscriber arriving while starting, after the first path, gets it") {
            [
                .subscribe(1, expect: "start 1"),
                .path(wifi, run: 1, expectTo: ["s1"]),
                .subscribe(2, expect: "replay wifi"),
                .started(run: 1, expectStop: nil),
            ]
        },
        Row(name: "a subscriber arriving before any path waits for it") {
            [.subscribe(1, expect: "start 1"), .subscribe(2, expect: "wait"), .path(wifi, run: 1, expectTo: ["s1", "s2"])]
        },
        Row(name: "an orphaned start is stopped and forgets its path; the next run starts afresh") {
            [
                .subscribe(1, expect: "start 1"),
                .path(wifi, run: 1, expectTo: ["s1"]),
                .unsubscribe(1, expectStop: nil),
                .started(run: 1, expectStop: "sub1"),
                .subscribe(2, expect: "start 2"),
                .path(wifi, run: 2, expectTo: ["s2"]),
            ]
        },
        Row(name: "the last subscriber leaving stops the source and forgets the latest path") {
            [
                .subscribe(1, expect: "start 1"),
                .path(wifi, run: 1, expectTo: ["s1"]),
                .started(run: 1, expectStop: nil),
                .unsubscribe(1, expectStop: "sub1"),
                .path(cellular, run: 1, expectTo: []),
                .subscribe(2, expect: "start 2"),
            ]
        },
        Row(name: "equal paths are not published twice") {
            [
                .subscribe(1, expect: "start 1"),
                .path(wifi, run: 1, expectTo: ["s1"]),
                .path(wifi, run: 1, expectTo: []),
                .path(cellular, run: 1, expectTo: ["s1"]),
            ]
        },
        Row(name: "a failed start ends every waiter and returns to idle") {
            [
                .subscribe(1, expect: "start 1"),
                .subscribe(2, expect: "wait"),
                .failed(run: 1, expectEnded: ["s1", "s2"]),
                .subscribe(3, expect: "start 2"),
            ]
        },
    ]

    @Test(arguments: rows)
    func table(_ row: Row) {
        var lifecycle = Lifecycle()
        for step in row.steps() {
            switch step {
            case .subscribe(let id, let expected):
                let answer = switch lifecycle.subscribe(id, "s\(id)") {
                case .startSource(let run): "start \(run)"
                case .replay(let path): "replay \(path.status)"
                case .wait: "wait"
                }
                #expect(answer == expected, "\(step)")
            case .unsubscribe(let id, let expected):
                #expect(lifecycle.unsubscribe(id) == expected, "\(step)")
            case .started(let run, let expected):
                #expect(lifecycle.started(run: run, "sub\(run)") == expected, "\(step)")
            case .failed(let run, let expected):
                #expect(lifecycle.startFailed(run: run).sorted() == expected, "\(step)")
            case .path(let path, let run, let expected):
                #expect(lifecycle.received(path, run: run).sorted() == expected, "\(step)")
            }
        }
    }
}
