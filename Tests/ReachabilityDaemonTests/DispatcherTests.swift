import Foundation
@testable import ReachabilityDaemon
import Testing

@Suite("Dispatcher hooks: which run, and what they are told")
struct DispatcherTests {
    typealias Facts = DispatcherChange.Facts
    static let cellular = Facts(status: "cellular", type: "cellular", interface: "wwan0", expensive: true)
    static let wifi = Facts(status: "wifi", type: "wifi", interface: "wlan0", connectivity: "full", ssid: "Home")
    static let none = Facts(status: "unreachable")

    @Test(arguments: [
        (nil, cellular, "startup"),
        (none, wifi, "up"),
        (wifi, none, "down"),
        (cellular, wifi, "change"),
        (wifi, Facts(status: "wifi", type: "wifi", interface: "wlan0", connectivity: "full", ssid: "Office"), "change"),
        (wifi, wifi, nil),
    ] as [(Facts?, Facts, String?)])
    func theEventFollowsTheChange(previous: Facts?, facts: Facts, event: String?) {
        #expect(DispatcherChange.between(previous, facts)?.event == event)
    }

    @Test func theEnvironmentHasEveryFactNowAndBeforeAndNothingElse() throws {
        let change = try #require(DispatcherChange.between(Self.cellular, Self.wifi))
        let environment = change.environment(socketPath: "/run/reach/reach.sock")
        #expect(environment["REACH_EVENT"] == "change")
        #expect(environment["REACH_STATUS"] == "wifi")
        #expect(environment["REACH_TYPE"] == "wifi")
        #expect(environment["REACH_INTERFACE"] == "wlan0")
        #expect(environment["REACH_EXPENSIVE"] == "0")
        #expect(environment["REACH_CONNECTIVITY"] == "full")
        #expect(environment["REACH_SSID"] == "Home")
        #expect(environment["REACH_PREVIOUS_STATUS"] == "cellular")
        #expect(environment["REACH_PREVIOUS_EXPENSIVE"] == "1")
        #expect(environment["REACH_PREVIOUS_SSID"] == "")
        #expect(environment["REACH_SOCKET"] == "/run/reach/reach.sock")
        #expect(Set(environment.keys).subtracting(["PATH", "REACH_SOCKET", "REACH_EVENT"]).allSatisfy { $0.hasPrefix("REACH_") })
        #expect(environment.count == 3 + 12)
    }

    static func entry(_ name: String, regular: Bool = true, link: String? = nil, owner: UInt32 = 0, mode: UInt32 = 0o755) -> DispatcherScripts.Entry {
        DispatcherScripts.Entry(name: name, isRegular: regular && link == nil, isSymbolicLink: link != nil, linkTarget: link, owner: owner, mode: mode)
    }

    @Test(arguments: [
        (entry("10-hook"), "run"),
        (entry("10-hook", owner: 1000), "run"),  // the daemon's own user (1000 below)
        (entry("10-hook", owner: 1001), "refuse"),
        (entry("10-hook", mode: 0o775), "refuse"),
        (entry("10-hook", mode: 0o757), "refuse"),
        (entry("10-hook", mode: 0o4755), "refuse"),
        (entry("10-hook", mode: 0o644), "refuse"),
        (entry("10-hook", regular: false), "refuse"),
        (entry("10-hook", link: "/usr/local/bin/hook"), "refuse"),
        (entry("10-hook", link: "/dev/null"), "skip"),
        (entry(".hidden"), "skip"),
        (entry("10-hook~"), "skip"),
        (entry("10-hook.dpkg-old"), "skip"),
    ] as [(DispatcherScripts.Entry, String)])
    func aHookRunsOnlyWhenNobodyElseCouldHaveChangedIt(entry: DispatcherScripts.Entry, expected: String) {
        let verdict = DispatcherScripts.verdict(entry, euid: 1000)
        switch verdict {
        case .run: #expect(expected == "run")
        case .skip: #expect(expected == "skip")
        case .refuse(let warning):
            #expect(expected == "refuse")
            #expect(warning.hasPrefix(entry.name + ": "))
        }
    }

    @Test func aDirectoryOthersCanWriteRefusesEveryHook() {
        #expect(DispatcherScripts.directoryProblem(isDirectory: true, isSymbolicLink: false, owner: 0, mode: 0o755, euid: 1000) == nil)
        #expect(DispatcherScripts.directoryProblem(isDirectory: true, isSymbolicLink: false, owner: 0, mode: 0o775, euid: 1000) != nil)
        #expect(DispatcherScripts.directoryProblem(isDirectory: true, isSymbolicLink: false, owner: 1001, mode: 0o755, euid: 1000) != nil)
        #expect(DispatcherScripts.directoryProblem(isDirectory: false, isSymbolicLink: true, owner: 0, mode: 0o777, euid: 1000) != nil)
    }

    @Test func hooksAreListedInByteOrderAndAMissingDirectoryHasNone() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dispatcher-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        #expect(DispatcherScripts.list(directory) == nil)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["b", "B", "10-a", "a"] { FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(), attributes: [.posixPermissions: 0o755]) }
        let names = try #require(try DispatcherScripts.list(directory)?.get()).map(\.name)
        #expect(names == ["10-a", "B", "a", "b"])
    }

    @Test(arguments: [
        ("/", true, UInt32(0), UInt32(0o755), true),
        ("/tmp", true, 0, 0o1777, true),  // sticky: others cannot rename what is not theirs
        ("/srv/shared", true, 0, 0o777, false),
        ("/srv/group", true, 0, 0o775, false),
        ("/home/mallory", true, 1001, 0o755, false),
        ("/home/daemon", true, 1000, 0o755, true),  // the daemon's own user (1000 below)
        ("/srv/file", false, 0, 0o755, false),
    ] as [(String, Bool, UInt32, UInt32, Bool)])
    func aHookDirectoryIsRefusedWhenAnyParentLetsOthersReplaceIt(path: String, isDirectory: Bool, owner: UInt32, mode: UInt32, safe: Bool) {
        let problem = DispatcherScripts.ancestorProblem(path, isDirectory: isDirectory, owner: owner, mode: mode, euid: 1000)
        #expect((problem == nil) == safe, "\(problem ?? "safe")")
        if let problem { #expect(problem.contains(path)) }
    }

    @Test func aParentOthersCanWriteRefusesTheDirectory() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("dispatcher-parent-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: parent + "/hooks", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: parent) }
        _ = chmod(parent, 0o777)
        _ = chmod(parent + "/hooks", 0o755)
        guard case .failure(let error) = DispatcherScripts.open(parent + "/hooks") else {
            Issue.record("a hook directory below a world-writable parent was opened")
            return
        }
        #expect(error.message.contains("writable by its group or others"), "\(error.message)")
        _ = chmod(parent, 0o755)
        #expect((try? DispatcherScripts.open(parent + "/hooks")?.get()) != nil)
    }
}
